import {
  RECALL_LIMIT_MAX,
  type ContextAnswer,
  type RecallAnswer,
  type RecallResult,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import type { EmbeddingsService, SemanticCandidate } from '../embeddings/index.js';
import type { AsOf, GraphService } from '../graph/index.js';
import { bindService } from '../feature.js';
import * as repo from './recall.repository.js';
import {
  BM25_B,
  BM25_K1,
  CANDIDATE_BUDGET,
  candidateQuery,
  COMMON_WORD_MATCHES,
  NAME_FIELD_WEIGHT,
  QUERY_WORDS_MAX,
  finalOrder,
  rescore,
  RESCORED_MAX,
  SAMPLE_SIZE,
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
  /** The semantic index: with an embedding endpoint, its order by meaning is fused with the lexical one. */
  embeddings?: EmbeddingsService | undefined;
  /** The graph as it was (docs/history.md), for a question asked `asOf` a past point. */
  graph: Pick<GraphService, 'recallAsOf'>;
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
/** Observations the semantic arm brings of its own. */
const SEMANTIC_CANDIDATES = 50;
/** An observation counts as near in meaning from this share of the nearest one's similarity. */
const MEANING_FLOOR = 0.5;
/** Reciprocal rank fusion's constant: how much the first ranks dominate. */
const FUSION_K = 60;

export async function recall(
  deps: RecallDeps,
  auth: SpaceAuth,
  input: RecallInput,
  asOf?: AsOf,
): Promise<RecallAnswer> {
  if (asOf) return deps.graph.recallAsOf(auth, input, asOf);
  const ranked = await rankedObservations(deps, auth.space.id, input);
  return { results: ranked, query: input.query };
}

async function rankedObservations(
  deps: RecallDeps,
  spaceId: string,
  input: RecallInput,
): Promise<RecallResult[]> {
  const { db } = deps;
  const only = input.entityNames?.length
    ? await repo.entityIdsByName(db, spaceId, input.entityNames)
    : null;
  if (only && only.length === 0) return [];

  // The semantic arm's own nearest observations (null without an endpoint), asked beside the lexical work.
  const nearest = deps.embeddings
    ? deps.embeddings.semanticCandidates(spaceId, input.query, SEMANTIC_CANDIDATES)
    : Promise.resolve(null);
  const question = await repo.readQuestion(db, spaceId, input.query, {
    words: QUERY_WORDS_MAX,
    cap: COMMON_WORD_MATCHES,
    sample: SAMPLE_SIZE,
    named: NAMED_MAX,
  });
  if (question.observations === 0) return [];

  const terms = weighTerms(question.words, question);
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
  const lexical = rescore(candidates, { question: input.query, neighbours: neighbourSet });
  const fused = await fuseWithMeaning(deps, spaceId, input, lexical, await nearest, only);
  const ordered = finalOrder(fused, input.limit);
  return ordered.map((row) => ({
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
): Promise<repo.CandidateRow[]> {
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
    { types: input.entityTypes?.length ? input.entityTypes : null, entities: only },
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
    ...added.filter((row) => near(row.id)).map((row) => ({ ...row, score: 0, coverage: 0 })),
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
    .map((row) => ({ ...row, score: fused.get(row.id)! * 1000 }))
    .sort((a, b) => b.score - a.score || b.createdAt.getTime() - a.createdAt.getTime());
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
  auth: SpaceAuth,
  input: { query: string; maxChars: number },
): Promise<ContextAnswer> {
  const results = await rankedObservations(deps, auth.space.id, {
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
  return { context: text, entities: kept, relations, chars: text.length };
}

export const createRecallService = (deps: RecallDeps) => bindService(deps, { recall, context });

export type RecallService = ReturnType<typeof createRecallService>;
