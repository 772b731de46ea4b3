import {
  RECALL_ABSTAIN_REASON,
  RECALL_LIMIT_MAX,
  type ContextAnswer,
  type RecallAnswer,
  type RecallResult,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import type { EmbeddingsService, SemanticCandidate } from '../embeddings/index.js';
import type { AsOf, PastPoint, ReadsService } from '../reads/index.js';
import { bindService } from '../feature.js';
import * as repo from './recall.repository.js';
import {
  ABSTAIN_FLOOR,
  CONFIDENCE_MEMORY_MIN,
  ADJACENT_RECORD_MIN,
  ADJACENT_SOURCES,
  BM25_B,
  BM25_K1,
  CANDIDATE_BUDGET,
  candidateQuery,
  COMMON_WORD_MATCHES,
  confidenceOf,
  inverseFrequency,
  lendToAdjacent,
  NAME_FIELD_WEIGHT,
  plainCoverage,
  unknownNames,
  QUERY_WORDS_MAX,
  finalOrder,
  rescore,
  rescoredFor,
  SAMPLE_SIZE,
  weighTerms,
} from './ranking.js';
import {
  keeps,
  rangeOf,
  resolveTime,
  timeFactor,
  type RecallRange,
  type ResolvedTime,
  type TimeArgs,
} from './time-range.js';

/**
 * Recall: the observations that answer a question in plain words, best
 * first (decision 020). Lexical by default; when an embedding endpoint is
 * configured, `semantic` scores the same candidates by meaning and the two
 * orders are fused.
 */
export interface RecallDeps {
  db: Db;
  /** The semantic index: with an embedding endpoint, its order by meaning is fused with the lexical one. */
  embeddings?: EmbeddingsService | undefined;
  /** For a question asked `asOf` a past point: the point, and the graph's observations then (docs/history.md). */
  reads: Pick<ReadsService, 'pointOf' | 'recallAt'>;
  /** The server's clock: what time words are read against when no `now` is given. */
  now?: () => Date;
}

export interface RecallInput extends TimeArgs {
  query: string;
  limit: number;
  entityTypes?: string[] | undefined;
  entityNames?: string[] | undefined;
  /** How a refusal names a parameter ('query.until' on REST; the bare name by default). */
  field?: ((name: string) => string) | undefined;
  /** False: best-effort results even when the best match is too weak (default true: abstain). */
  abstain?: boolean | undefined;
}

/** What recall found: the results (each with its confidence) and whether the memory holds anything. */
interface Found {
  results: (RecallResult & { confidence: number })[];
  /** Names the question uses that nothing in memory mentions (ranking.ts `unknownNames`). */
  unknown?: string[];
  /** The account's observations (0: an empty memory, which nothing can answer and recall does not abstain from). */
  observations: number;
}

/**
 * Whether to answer "nothing": asked to abstain (the default), with
 * something in memory, and not even the best result reaching the floor.
 */
function abstains(found: Found, abstain: boolean | undefined): boolean {
  if (abstain === false || found.observations === 0) return false;
  if (found.unknown?.length) return true;
  return (found.results[0]?.confidence ?? 0) < ABSTAIN_FLOOR;
}

/** Why an answer abstained, in words. */
function abstainReason(found: Found): string {
  return found.unknown?.length
    ? `${RECALL_ABSTAIN_REASON} Nothing in memory mentions ${found.unknown.join(', ')}.`
    : RECALL_ABSTAIN_REASON;
}

/** Entities a question names whose observations are candidates even without a shared word. */
const NAMED_MAX = 8;
/** The latest observations of each named entity that are candidates. */
const LATEST_PER_NAMED = 20;
/** Of each named entity, the latest observations read for the question's words: bounded work however large it is. */
const NAMED_SCAN = 1_000;
/** Relations followed from the named entities to find their neighbours. */
const NEIGHBOURS_MAX = 200;
/** Observations the semantic arm brings of its own. */
const SEMANTIC_CANDIDATES = 50;
/** An observation counts as near in meaning from this share of the nearest one's similarity. */
const MEANING_FLOOR = 0.5;
/** Reciprocal rank fusion's constant: how much the first ranks dominate. */
const FUSION_K = 60;
/** Observations of the past's answer a range is applied to (asOf with a range). */
const PAST_POOL = 200;

/**
 * The time a question is read at: `now` when given; asked as of a time (the
 * point the reads resolved), that time; else the server's clock.
 */
function timeAt(deps: RecallDeps, input: RecallInput & TimeArgs, past?: PastPoint): ResolvedTime {
  const clock = past?.at ?? (deps.now ?? (() => new Date()))();
  return resolveTime(input.query, input, clock, input.field);
}

/** Answers `input`; asked `asOf` a past point, from the graph as it was then. */
export async function recall(
  deps: RecallDeps,
  auth: SpaceAuth,
  input: RecallInput,
  asOf?: AsOf,
): Promise<RecallAnswer> {
  const past = asOf && (await deps.reads.pointOf(auth, asOf));
  const time = timeAt(deps, input, past);
  const found = past
    ? await pastObservations(deps, auth, input, time, past)
    : await rankedObservations(deps, auth.space.id, input, time);
  const abstained = abstains(found, input.abstain);
  return {
    results: abstained ? [] : found.results,
    query: input.query,
    timeRange: rangeOf(time.range),
    abstained,
    abstainReason: abstained ? abstainReason(found) : null,
  };
}

/**
 * The past's answer (history's simpler order) kept to the range: its best
 * PAST_POOL, each dated by its observation's `validFrom`/`validTo` as they
 * were then.
 */
async function pastObservations(
  deps: RecallDeps,
  auth: SpaceAuth,
  input: RecallInput,
  time: ResolvedTime,
  point: PastPoint,
): Promise<Found> {
  const question = {
    query: input.query,
    limit: time.range ? Math.max(input.limit, PAST_POOL) : input.limit,
    entityTypes: input.entityTypes,
    entityNames: input.entityNames,
  };
  const past = await deps.reads.recallAt(auth, question, point);
  // The past's reader scores no coverage: its confidence is the share of the question's words the text or name holds.
  const dated = past.results.map((result) => ({
    ...result,
    validFrom: result.validFrom ?? null,
    validTo: result.validTo ?? null,
    confidence: plainCoverage(input.query, `${result.entityName} ${result.observation}`),
  }));
  // The past held something when it answered anything; an empty past has nothing to abstain from.
  const observations = past.results.length;
  const { range } = time;
  if (!range) return { results: dated, observations };
  const datesOf = (result: RecallResult) => ({
    createdAt: new Date(result.createdAt),
    validFrom: result.validFrom ? new Date(result.validFrom) : null,
    validTo: result.validTo ? new Date(result.validTo) : null,
  });
  const results = dated
    .filter((result) => keeps(datesOf(result), range))
    .map((result) => ({ ...result, score: result.score * timeFactor(datesOf(result), range) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, input.limit);
  return { results, observations };
}

/** The range as the SQL keeps to it. */
const filterOf = (range: RecallRange | null): repo.RangeFilter | null =>
  range && { since: range.since, until: range.until, strict: range.source === 'parameters' };

async function rankedObservations(
  deps: RecallDeps,
  spaceId: string,
  input: RecallInput,
  time: ResolvedTime,
): Promise<Found> {
  const { db } = deps;
  const only = input.entityNames?.length
    ? await repo.entityIdsByName(db, spaceId, input.entityNames)
    : null;
  // Asked about entities the memory does not hold: nothing answers (an abstention when asked to).
  if (only && only.length === 0) return { results: [], observations: 1 };

  // The semantic arm's own nearest observations (null without an endpoint), asked beside the lexical work.
  const nearest = deps.embeddings
    ? deps.embeddings.semanticCandidates(spaceId, input.query, SEMANTIC_CANDIDATES)
    : Promise.resolve(null);
  const question = await repo.readQuestion(
    db,
    spaceId,
    input.query,
    { words: QUERY_WORDS_MAX, cap: COMMON_WORD_MATCHES, sample: SAMPLE_SIZE, named: NAMED_MAX },
    time.timeWords,
  );
  if (question.observations === 0) return { results: [], observations: 0 };
  // The weight of a word no observation holds (the most any word can weigh), and the question's.
  const maxWeight = inverseFrequency(0, question.observations);

  const terms = weighTerms(question.words, question);
  const weights = {
    maxWeight,
    totalWeight: terms.reduce((sum, term) => sum + term.weight, 0),
    terms: terms.length,
    observations: question.observations,
  };
  // Asked for some entities, those are the named ones and the only candidates.
  const named = only ?? question.named;
  const probe = only ? null : candidateQuery(terms);
  const [neighbours, candidates] = await Promise.all([
    repo.neighbourEntities(db, spaceId, named, NEIGHBOURS_MAX),
    terms.length === 0 && named.length === 0
      ? []
      : repo.scoredCandidates(db, spaceId, {
          terms,
          probe,
          named,
          types: input.entityTypes?.length ? input.entityTypes : null,
          entities: only,
          range: filterOf(time.range),
          timeWordsMatch: time.timeWordsMatch,
          averageWords: question.averageWords,
          budget: CANDIDATE_BUDGET,
          latestPerNamed: LATEST_PER_NAMED,
          namedScan: NAMED_SCAN,
          limit: rescoredFor(input.limit, time.range !== null),
          k1: BM25_K1,
          b: BM25_B,
          nameWeight: NAME_FIELD_WEIGHT,
        }),
  ]);
  const neighbourSet = new Set(neighbours.filter((id) => !named.includes(id)));
  // A capitalised word no observation holds may still be a name or alias of an entity the question names.
  let unknown = unknownNames(
    input.query,
    terms,
    candidates.map((row) => row.entityName),
  );
  if (unknown.length > 0 && named.length > 0) {
    unknown = unknownNames(input.query, terms, [
      ...candidates.map((row) => row.entityName),
      ...(await repo.namesOf(db, spaceId, named)),
    ]);
  }
  // A word no observation holds is taken from the confidence as well as from coverage when it is an
  // unknown name or an unknown topic ("the recipe for tiramisu"): in a question that names no entity,
  // asked of a memory large enough to hold everyday words ("goes" is missing from most small ones).
  const topics = named.length === 0 && question.observations >= CONFIDENCE_MEMORY_MIN;
  const unheard = terms.filter(
    (term) =>
      term.matches === 0 &&
      !term.dated &&
      (topics || unknown.some((name) => name.toLowerCase().startsWith(term.lexeme))),
  );
  const unknownShare =
    unheard.reduce((sum, term) => sum + term.weight, 0) / Math.max(weights.totalWeight, 1e-9);
  const lexical = await besideTheBest(
    db,
    spaceId,
    rescore(candidates, { question: input.query, neighbours: neighbourSet }),
    time.range,
  );
  const fused = await fuseWithMeaning(deps, spaceId, input, lexical, await nearest, only, time);
  const ordered = finalOrder(underRange(fused, time.range), input.limit);
  const results = ordered.map((row) => ({
    observation: row.content,
    observationId: row.id,
    entityName: row.entityName,
    entityType: row.entityType,
    entityId: row.entityId,
    createdAt: row.createdAt.toISOString(),
    validFrom: row.validFrom?.toISOString() ?? null,
    validTo: row.validTo?.toISOString() ?? null,
    score: row.score,
    // Near in meaning counts as much as its similarity (with an embedding endpoint).
    confidence: Math.max(
      Math.round(confidenceOf(row, weights) * (1 - unknownShare) * 1000) / 1000,
      Math.min(1, Math.max(0, row.meaning ?? 0)),
    ),
  }));
  return { results, observations: question.observations, unknown };
}

/**
 * The observations added just before and after the best few on the same
 * entity join the candidates (ranking.ts `lendToAdjacent`): a turn that
 * matches the question is often followed by the one that answers it.
 */
async function besideTheBest(
  db: Db,
  spaceId: string,
  ranked: repo.CandidateRow[],
  range: RecallRange | null,
): Promise<repo.CandidateRow[]> {
  const sources = ranked.slice(0, ADJACENT_SOURCES);
  if (sources.length === 0) return ranked;
  const adjacent = await repo.adjacentObservations(
    db,
    spaceId,
    sources,
    filterOf(range),
    ADJACENT_RECORD_MIN,
  );
  return lendToAdjacent(ranked, sources, adjacent);
}

/**
 * Under a range from the question, observations known only by when they were
 * written, and for "now" questions facts that have ended, count less
 * (time-range.ts). At most `rescoredFor`'s rows and the semantic arm's.
 */
function underRange<T extends repo.CandidateRow>(rows: T[], range: RecallRange | null): T[] {
  if (!range) return rows;
  return rows
    .map((row) => ({ ...row, score: row.score * timeFactor(row, range) }))
    .sort((a, b) => b.score - a.score || b.createdAt.getTime() - a.createdAt.getTime());
}

/**
 * With an embedding endpoint, the lexical order and the order by meaning are
 * fused by reciprocal rank (each rank r counts 1/(K + r)), so neither scale
 * has to be calibrated against the other. The semantic arm brings its own
 * nearest observations (those sharing no word with the question) and scores
 * the lexical ones. Without an endpoint, or when it fails, the lexical order
 * stands.
 */
async function fuseWithMeaning(
  deps: RecallDeps,
  spaceId: string,
  input: RecallInput,
  lexical: repo.CandidateRow[],
  nearest: SemanticCandidate[] | null,
  only: string[] | null,
  time: ResolvedTime,
): Promise<(repo.CandidateRow & { meaning?: number })[]> {
  if (!deps.embeddings?.embedder) return lexical;
  const similarity = await deps.embeddings.semanticScores(
    spaceId,
    input.query,
    lexical.map((row) => row.id),
  );
  if (!similarity && !nearest) return lexical;
  const known = new Set(lexical.map((row) => row.id));
  const added = await repo.observationsByIds(
    deps.db,
    spaceId,
    (nearest ?? []).map((hit) => hit.observationId).filter((id) => !known.has(id)),
    {
      types: input.entityTypes?.length ? input.entityTypes : null,
      entities: only,
      range: filterOf(time.range),
    },
  );
  for (const hit of nearest ?? []) similarity?.set(hit.observationId, hit.score);
  const meaning = new Map(
    similarity ?? (nearest ?? []).map((hit) => [hit.observationId, hit.score]),
  );
  // Only the near ones count: every observation has some similarity to anything.
  const nearestSimilarity = Math.max(0, ...meaning.values());
  const near = (id: string) =>
    (meaning.get(id) ?? 0) > 0 && meaning.get(id)! >= nearestSimilarity * MEANING_FLOOR;
  const all = [
    ...lexical,
    ...added
      .filter((row) => near(row.id))
      .map((row) => ({ ...row, score: 0, coverage: 0, rarest: 0, named: false })),
  ];
  const byMeaning = all
    .filter((row) => near(row.id))
    .sort((a, b) => meaning.get(b.id)! - meaning.get(a.id)!);
  const fused = new Map<string, number>();
  const lend = (id: string, rank: number) =>
    fused.set(id, (fused.get(id) ?? 0) + 1 / (FUSION_K + rank + 1));
  lexical.forEach((row, rank) => lend(row.id, rank));
  byMeaning.forEach((row, rank) => lend(row.id, rank));
  // Scaled so that a result first in both orders scores about 33.
  return all
    .map((row) => ({
      ...row,
      score: fused.get(row.id)! * 1000,
      ...(near(row.id) ? { meaning: meaning.get(row.id)! } : {}),
    }))
    .sort((a, b) => b.score - a.score || b.createdAt.getTime() - a.createdAt.getTime());
}

/** Relations shown among a context's entities, at most. */
const CONTEXT_RELATIONS_MAX = 100;

interface ContextGroup {
  name: string;
  type: string;
  /** Each line with the fact's date when known ("2024-03-03", "2024-03-03 to 2024-06-30"). */
  observations: { text: string; date: string | null }[];
}

/** When a fact held, as a line shows it: null when its writer did not say. */
export function factDate(result: Pick<RecallResult, 'validFrom' | 'validTo'>): string | null {
  if (!result.validFrom) return result.validTo ? `until ${result.validTo.slice(0, 10)}` : null;
  const from = result.validFrom.slice(0, 10);
  return result.validTo ? `${from} to ${result.validTo.slice(0, 10)}` : from;
}

/** A context block as text: each entity, its observations as lines, then the relations. */
function renderContext(groups: ContextGroup[], relations: ContextAnswer['relations']): string {
  const blocks = groups.map((group) =>
    [
      `${group.name} (${group.type})`,
      ...group.observations.map((line) => `- ${line.date ? `[${line.date}] ` : ''}${line.text}`),
    ].join('\n'),
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
 * rank order (only when not even the best one fits is it cut). The time
 * range is recall's (`since`/`until`, or the question's time words).
 */
export async function context(
  deps: RecallDeps,
  auth: SpaceAuth,
  input: TimeArgs & {
    query: string;
    maxChars: number;
    field?: ((name: string) => string) | undefined;
    abstain?: boolean | undefined;
  },
): Promise<ContextAnswer> {
  const question = { ...input, limit: RECALL_LIMIT_MAX };
  const time = timeAt(deps, question);
  const found = await rankedObservations(deps, auth.space.id, question, time);
  const abstained = abstains(found, input.abstain);
  const results = abstained ? [] : found.results;
  const groups = new Map<string, ContextGroup>();
  const fits = () => renderContext([...groups.values()], []).length <= input.maxChars;
  for (const result of results) {
    const line = { text: result.observation.replace(/\s+/g, ' ').trim(), date: factDate(result) };
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
        observations: [{ text: `${line}…`, date: null }],
      });
    }
  }

  const kept = [...groups.values()];
  const among = await repo.relationsAmong(
    deps.db,
    auth.space.id,
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
  return {
    context: text,
    entities: kept.map((group) => ({
      name: group.name,
      type: group.type,
      observations: group.observations.map((line) => line.text),
    })),
    relations,
    chars: text.length,
    timeRange: rangeOf(time.range),
    abstained,
    abstainReason: abstained ? abstainReason(found) : null,
  };
}

export const createRecallService = (deps: RecallDeps) => bindService(deps, { recall, context });

export type RecallService = ReturnType<typeof createRecallService>;
