/**
 * The evaluation set (bench/recall/dataset/, described in bench/recall/README.md):
 * read, checked, and flattened into the memories to store and the questions
 * to ask. Every memory has a ref (`<file id>/<local id>`) the questions'
 * evidence names; the server assigns its own ids, so answers are matched by
 * entity name + stored text (`memoryKey`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Split = 'dev' | 'test';
export const CATEGORIES = [
  'single-hop',
  'multi-hop',
  'temporal',
  'open-domain',
  'dated',
  'unanswerable',
] as const;
export type Category = (typeof CATEGORIES)[number];
export type Kind = 'conversational' | 'factual' | 'dated' | 'abstain';

interface QuestionSource {
  id: string;
  category: Category;
  question: string;
  answer: string;
  /** Local ids of the turns or observations that answer it; empty when unanswerable. */
  evidence: string[];
}

interface ConversationFile {
  id: string;
  split: Split;
  speakers: [string, string];
  sessions: { date: string; turns: { id: string; speaker: string; text: string }[] }[];
  questions: QuestionSource[];
}

/** A dated question's time: asked with since/until (parameters) or time words read against `now`. */
interface QuestionTime {
  since?: string;
  until?: string;
  now?: string;
  /** The range its answer must lie in (dates, both inclusive; null: open). */
  range?: { since: string | null; until: string | null };
}

/** unanswerable.json: questions nothing in the set answers (about absent people, places, topics). */
interface AbstainFile {
  questions: (QuestionSource & { split: Split })[];
}

/** dated.json: entities whose observations carry when they held, and questions about a time. */
interface DatedFile {
  entities: {
    name: string;
    type: string;
    split: Split;
    observations: { id: string; text: string; validFrom: string; validTo?: string }[];
  }[];
  questions: (QuestionSource & QuestionTime & { split: Split })[];
}

interface FactualFile {
  entities: {
    name: string;
    type: string;
    split: Split;
    observations: { id: string; text: string }[];
  }[];
  relations: { from: string; to: string; type: string }[];
  questions: (QuestionSource & { split: Split })[];
}

export interface Memory {
  ref: string;
  entityName: string;
  entityType: string;
  /** The text as written in the set, without a date. */
  text: string;
  /** The session's date for a conversational turn ("8 May 2023"). */
  date?: string;
  /** When a dated fact held (dated.json), sent as the observation's validFrom/validTo. */
  validFrom?: string;
  validTo?: string;
  split: Split;
}

export interface Question {
  id: string;
  kind: Kind;
  split: Split;
  category: Category;
  question: string;
  answer: string;
  /** Refs of the memories that answer it. */
  evidence: string[];
  /** Dated questions: the time they are asked with and the range their answer lies in. */
  time?: QuestionTime;
}

export interface EvalSet {
  entities: { name: string; type: string; split: Split }[];
  /** In the order they are stored: conversations session by session, then the factual set. */
  memories: Memory[];
  relations: { from: string; to: string; type: string }[];
  questions: Question[];
}

export type DatesMode = 'prefix' | 'none';

/** What the server stores for a memory: a conversational turn may carry its session's date. */
export function storedText(memory: Memory, dates: DatesMode): string {
  return dates === 'prefix' && memory.date ? `[${memory.date}] ${memory.text}` : memory.text;
}

export const memoryKey = (entityName: string, text: string) => `${entityName}\n${text.trim()}`;

const DATASET = fileURLToPath(new URL('./dataset/', import.meta.url));

const readJson = <T>(file: string): T => JSON.parse(readFileSync(DATASET + file, 'utf8')) as T;

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`bench/recall/dataset: ${message}`);
}

function checkQuestion(q: QuestionSource, known: Set<string>, prefix: string): void {
  check(CATEGORIES.includes(q.category), `${q.id}: unknown category ${q.category}`);
  check(q.question.trim() && q.answer.trim(), `${q.id}: question and answer are required`);
  check(
    (q.category === 'unanswerable') === (q.evidence.length === 0),
    `${q.id}: evidence is empty exactly when the question is unanswerable`,
  );
  for (const local of q.evidence) check(known.has(`${prefix}/${local}`), `${q.id}: no ${local}`);
}

export function loadEvalSet(): EvalSet {
  const set: EvalSet = { entities: [], memories: [], relations: [], questions: [] };
  const names = new Set<string>();
  const addEntity = (name: string, type: string, split: Split) => {
    check(!names.has(name.toLowerCase()), `entity ${name} appears twice`);
    names.add(name.toLowerCase());
    set.entities.push({ name, type, split });
  };
  const refs = new Set<string>();
  const addMemory = (memory: Memory) => {
    check(!refs.has(memory.ref), `${memory.ref} appears twice`);
    refs.add(memory.ref);
    set.memories.push(memory);
  };
  const questionIds = new Set<string>();
  const addQuestion = (question: Question) => {
    check(!questionIds.has(question.id), `question ${question.id} appears twice`);
    questionIds.add(question.id);
    set.questions.push(question);
  };

  const conversations = readdirSync(DATASET)
    .filter((file) => /^conv-.*\.json$/.test(file))
    .sort();
  for (const file of conversations) {
    const conversation = readJson<ConversationFile>(file);
    check(['dev', 'test'].includes(conversation.split), `${file}: split must be dev or test`);
    for (const speaker of conversation.speakers) addEntity(speaker, 'person', conversation.split);
    let previous = 0;
    for (const session of conversation.sessions) {
      const day = Date.parse(`${session.date} 12:00 UTC`);
      check(day > previous, `${file}: session dates must be valid and in order (${session.date})`);
      previous = day;
      for (const turn of session.turns) {
        check(conversation.speakers.includes(turn.speaker), `${file} ${turn.id}: unknown speaker`);
        addMemory({
          ref: `${conversation.id}/${turn.id}`,
          entityName: turn.speaker,
          entityType: 'person',
          text: turn.text,
          date: session.date,
          split: conversation.split,
        });
      }
    }
    for (const q of conversation.questions) {
      checkQuestion(q, refs, conversation.id);
      addQuestion({
        ...q,
        kind: 'conversational',
        split: conversation.split,
        evidence: q.evidence.map((local) => `${conversation.id}/${local}`),
      });
    }
  }

  const factual = readJson<FactualFile>('factual.json');
  for (const entity of factual.entities) {
    addEntity(entity.name, entity.type, entity.split);
    for (const observation of entity.observations) {
      addMemory({
        ref: `factual/${observation.id}`,
        entityName: entity.name,
        entityType: entity.type,
        text: observation.text,
        split: entity.split,
      });
    }
  }
  for (const relation of factual.relations) {
    check(
      names.has(relation.from.toLowerCase()) && names.has(relation.to.toLowerCase()),
      `relation ${relation.from} -${relation.type}-> ${relation.to}: unknown end`,
    );
    set.relations.push(relation);
  }
  for (const q of factual.questions) {
    check(['dev', 'test'].includes(q.split), `${q.id}: split must be dev or test`);
    checkQuestion(q, refs, 'factual');
    addQuestion({
      ...q,
      kind: 'factual',
      evidence: q.evidence.map((local) => `factual/${local}`),
    });
  }

  // Dated facts and their questions (the category `dated`).
  const dated = readJson<DatedFile>('dated.json');
  for (const entity of dated.entities) {
    addEntity(entity.name, entity.type, entity.split);
    for (const observation of entity.observations) {
      check(!Number.isNaN(Date.parse(observation.validFrom)), `dated/${observation.id}: validFrom`);
      addMemory({
        ref: `dated/${observation.id}`,
        entityName: entity.name,
        entityType: entity.type,
        text: observation.text,
        validFrom: observation.validFrom,
        ...(observation.validTo ? { validTo: observation.validTo } : {}),
        split: entity.split,
      });
    }
  }
  for (const q of dated.questions) {
    check(q.category === 'dated' && q.range, `${q.id}: a dated question with its range`);
    checkQuestion(q, refs, 'dated');
    const { since, until, now, range, ...rest } = q;
    addQuestion({
      ...rest,
      kind: 'dated',
      evidence: q.evidence.map((local) => `dated/${local}`),
      time: {
        range,
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(now ? { now } : {}),
      },
    });
  }

  // Questions nothing stored answers.
  for (const q of readJson<AbstainFile>('unanswerable.json').questions) {
    check(q.category === 'unanswerable', `${q.id}: unanswerable.json holds unanswerable questions`);
    check(['dev', 'test'].includes(q.split), `${q.id}: split must be dev or test`);
    checkQuestion(q, refs, 'abstain');
    addQuestion({ ...q, kind: 'abstain', evidence: [] });
  }

  // The server skips a text its entity already has: each must be unique per entity, dates or not.
  const texts = new Set<string>();
  for (const memory of set.memories) {
    const key = memoryKey(memory.entityName, memory.text.toLowerCase());
    check(!texts.has(key), `${memory.ref}: ${memory.entityName} already says "${memory.text}"`);
    texts.add(key);
  }
  return set;
}

/** Counts for the report: memories, entities and questions per split, kind and category. */
export function describeSet(set: EvalSet): string[] {
  const lines: string[] = [];
  const chars = set.memories.reduce((sum, memory) => sum + memory.text.length, 0);
  lines.push(
    `${set.memories.length} observations (${set.memories.filter((m) => m.date).length} conversational turns), ` +
      `${set.entities.length} entities, ${set.relations.length} relations, ` +
      `${(chars / set.memories.length).toFixed(0)} characters per observation on average`,
  );
  for (const split of ['dev', 'test'] as const) {
    for (const kind of ['conversational', 'factual', 'dated', 'abstain'] as const) {
      const questions = set.questions.filter((q) => q.split === split && q.kind === kind);
      const perCategory = CATEGORIES.map(
        (category) => `${category} ${questions.filter((q) => q.category === category).length}`,
      ).join(', ');
      lines.push(`${split} ${kind}: ${questions.length} questions (${perCategory})`);
    }
  }
  return lines;
}
