import {
  RECALL_LIMIT_MAX,
  type ContextAnswer,
  type RecallAnswer,
  type RecallResult,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import * as repo from './recall.repository.js';
import {
  anyOf,
  BM25_B,
  BM25_K1,
  CANDIDATE_BUDGET,
  COMMON_WORD_MATCHES,
  lexemeQuery,
  NAME_FIELD_WEIGHT,
  probeTerms,
  QUERY_WORDS_MAX,
  rankCandidates,
  RESCORED_MAX,
  weighTerms,
} from './ranking.js';

/**
 * Recall: the observations that answer a question in plain words, best
 * first (decision 020). Lexical by default; when an embedding endpoint is
 * configured, `semantic` scores the same candidates by meaning and the two
 * orders are fused.
 */
export interface RecallDeps {
  db: Db;
  /** Similarity (−1…1) of the question to each candidate with a stored vector; null when off or failing. */
  semantic?: (
    accountId: string,
    question: string,
    observationIds: string[],
  ) => Promise<Map<string, number> | null>;
}

export interface RecallInput {
  query: string;
  limit: number;
  entityTypes?: string[] | undefined;
  entityNames?: string[] | undefined;
}

/** Entities a question names whose observations are candidates even without a shared word. */
const NAMED_MAX = 8;
/** The latest observations of each named entity that are candidates. */
const LATEST_PER_NAMED = 20;
/** Relations followed from the named entities to find their neighbours. */
const NEIGHBOURS_MAX = 200;
/** Words shorter than this never name an entity (trigram matching needs three characters). */
const NAME_WORD_MIN = 3;
/** Reciprocal rank fusion's constant: how much the first ranks dominate. */
const FUSION_K = 60;

export async function recall(
  deps: RecallDeps,
  auth: AuthContext,
  input: RecallInput,
): Promise<RecallAnswer> {
  const ranked = await rankedObservations(deps, auth.accountId, input);
  return { results: ranked, query: input.query };
}

async function rankedObservations(
  deps: RecallDeps,
  accountId: string,
  input: RecallInput,
): Promise<RecallResult[]> {
  const { db } = deps;
  const question = await repo.questionWords(db, accountId, input.query, QUERY_WORDS_MAX);
  if (question.lexemes.length === 0 || question.observations === 0) return [];

  const only = input.entityNames?.length
    ? await repo.entityIdsByName(db, accountId, input.entityNames)
    : null;
  if (only && only.length === 0) return [];

  const [matches, named] = await Promise.all([
    repo.wordMatches(db, accountId, question.lexemes.map(lexemeQuery), COMMON_WORD_MATCHES),
    only ??
      repo.namedEntities(
        db,
        accountId,
        question.lexemes.filter((lexeme) => lexeme.length >= NAME_WORD_MIN),
        NAMED_MAX,
      ),
  ]);
  const terms = weighTerms(
    question.lexemes.map((lexeme, i) => ({ lexeme, matches: matches[i] ?? 0 })),
    question.observations,
  );
  const probe = only ? [] : probeTerms(terms);
  const [neighbours, candidates] = await Promise.all([
    repo.neighbourEntities(db, accountId, named, NEIGHBOURS_MAX),
    repo.scoredCandidates(db, accountId, {
      terms: terms.map((term) => ({ query: lexemeQuery(term.lexeme), weight: term.weight })),
      probe: probe.length > 0 ? anyOf(probe) : null,
      named,
      types: input.entityTypes?.length ? input.entityTypes : null,
      entities: only,
      averageWords: question.averageWords,
      budget: CANDIDATE_BUDGET,
      latestPerNamed: LATEST_PER_NAMED,
      limit: RESCORED_MAX,
      k1: BM25_K1,
      b: BM25_B,
      nameWeight: NAME_FIELD_WEIGHT,
    }),
  ]);
  const neighbourSet = new Set(neighbours.filter((id) => !named.includes(id)));
  const lexical = rankCandidates(
    candidates,
    { question: input.query, neighbours: neighbourSet },
    Math.max(input.limit, RESCORED_MAX),
  );
  const ordered = await fuseWithMeaning(deps, accountId, input.query, lexical);
  return ordered.slice(0, input.limit).map((row) => ({
    observation: row.content,
    observationId: row.id,
    entityName: row.entityName,
    entityType: row.entityType,
    entityId: row.entityId,
    createdAt: row.createdAt.toISOString(),
    score: row.score,
  }));
}

/**
 * With an embedding endpoint, the lexical order and the order by meaning of
 * the same candidates are fused by reciprocal rank (each rank r counts
 * 1/(K + r)), so neither scale has to be calibrated against the other.
 * Without one, or when it fails, the lexical order stands.
 */
async function fuseWithMeaning<T extends { id: string; score: number }>(
  deps: RecallDeps,
  accountId: string,
  question: string,
  lexical: T[],
): Promise<T[]> {
  if (!deps.semantic || lexical.length === 0) return lexical;
  const similarity = await deps.semantic(
    accountId,
    question,
    lexical.map((row) => row.id),
  );
  if (!similarity || similarity.size === 0) return lexical;
  const byMeaning = lexical
    .filter((row) => similarity.has(row.id))
    .sort((a, b) => similarity.get(b.id)! - similarity.get(a.id)!);
  const fused = new Map<string, number>();
  lexical.forEach((row, rank) => fused.set(row.id, 1 / (FUSION_K + rank + 1)));
  byMeaning.forEach((row, rank) =>
    fused.set(row.id, fused.get(row.id)! + 1 / (FUSION_K + rank + 1)),
  );
  const scale = 1000;
  return lexical
    .map((row) => ({ ...row, score: Math.round(fused.get(row.id)! * scale * 1000) / 1000 }))
    .sort((a, b) => b.score - a.score);
}

/** Relations shown among a context's entities, at most. */
const CONTEXT_RELATIONS_MAX = 100;

interface ContextGroup {
  name: string;
  type: string;
  observations: string[];
}

/** A context block as text: each entity, its observations as lines, then the relations. */
function renderContext(groups: ContextGroup[], relations: ContextAnswer['relations']): string {
  const blocks = groups.map((group) =>
    [`${group.name} (${group.type})`, ...group.observations.map((line) => `- ${line}`)].join('\n'),
  );
  if (relations.length > 0) {
    blocks.push(
      ['Relations', ...relations.map((r) => `- ${r.from} ${r.relationType} ${r.to}`)].join('\n'),
    );
  }
  return blocks.join('\n\n');
}

/**
 * One block to put in a prompt: the best observations for the question,
 * grouped under their entities in the order of each entity's best one, then
 * the relations among those entities — whole lines that fit `maxChars`, in
 * rank order (only when not even the best one fits is it cut).
 */
export async function context(
  deps: RecallDeps,
  auth: AuthContext,
  input: { query: string; maxChars: number },
): Promise<ContextAnswer> {
  const results = await rankedObservations(deps, auth.accountId, {
    query: input.query,
    limit: RECALL_LIMIT_MAX,
  });
  const groups = new Map<string, ContextGroup>();
  const fits = () => renderContext([...groups.values()], []).length <= input.maxChars;
  for (const result of results) {
    const line = result.observation.replace(/\s+/g, ' ').trim();
    const group = groups.get(result.entityId);
    if (group) {
      group.observations.push(line);
      if (!fits()) group.observations.pop();
    } else {
      groups.set(result.entityId, {
        name: result.entityName,
        type: result.entityType,
        observations: [line],
      });
      if (!fits()) groups.delete(result.entityId);
    }
  }
  const best = results[0];
  if (groups.size === 0 && best) {
    const header = `${best.entityName} (${best.entityType})\n- `;
    const room = input.maxChars - header.length - 1;
    if (room > 0) {
      const line = best.observation.replace(/\s+/g, ' ').trim().slice(0, room);
      groups.set(best.entityId, {
        name: best.entityName,
        type: best.entityType,
        observations: [`${line}…`],
      });
    }
  }

  const kept = [...groups.values()];
  const among = await repo.relationsAmong(
    deps.db,
    auth.accountId,
    [...groups.keys()],
    CONTEXT_RELATIONS_MAX,
  );
  const relations: ContextAnswer['relations'] = [];
  for (const relation of among) {
    relations.push(relation);
    if (renderContext(kept, relations).length > input.maxChars) {
      relations.pop();
      break;
    }
  }
  const text = renderContext(kept, relations);
  return { context: text, entities: kept, relations, chars: text.length };
}
