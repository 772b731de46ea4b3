import type { EmbeddingStatus } from '@engram/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { isUuid } from '../../lib/ids.js';
import { EmbeddingClient, EmbeddingError, MAX_DIMENSIONS } from './embedding-client.js';
import * as repo from './embeddings.repository.js';
import { cosine, fromBase64, normalized } from './vectors.js';
import { bindService } from '../feature.js';

/**
 * The optional semantic arm of recall (issue 32): with EMBEDDINGS_URL and
 * EMBEDDINGS_MODEL set, every observation gets a vector from that endpoint,
 * in the background (`EmbeddingIndexer`, embedding-indexer.ts), never in a write's transaction;
 * recall fuses `semanticScores` (and `semanticCandidates`) with its lexical
 * ranking. Without the setting nothing here runs or writes, and every read
 * answers null: recall stays lexical.
 */

// ── the deps recall and analytics receive ───────────────────────────────────

export interface EmbeddingsDeps {
  db: Db;
  /** Null when EMBEDDINGS_URL is unset: nothing is embedded and the reads below answer null. */
  embedder: Embedder | null;
  /** Failures of the reads (they answer null instead of throwing). */
  onError?: ((error: unknown, message: string) => void) | undefined;
}

/** How long a question's embedding may take before recall goes on without it. */
export const QUERY_TIMEOUT_MS = 2_000;
/** After a failed question embedding, questions skip the endpoint this long (no 2 s wait each). */
const QUERY_PAUSE_MS = 10_000;
/** Questions whose vectors are kept (256 × 768 floats: under 1 MB). */
const QUERY_CACHE_SIZE = 256;

/** The configured endpoint and model, with the questions' vectors recently asked for. */
export class Embedder {
  private readonly queries = new Map<string, Float32Array>();
  private pausedUntil = 0;

  constructor(
    readonly client: EmbeddingClient,
    private readonly options: { queryTimeoutMs: number } = { queryTimeoutMs: QUERY_TIMEOUT_MS },
  ) {}

  get model(): string {
    return this.client.model;
  }

  /** A question's embedding failed a moment ago: questions go without one for now. */
  get paused(): boolean {
    return Date.now() < this.pausedUntil;
  }

  /**
   * The unit vector of a question: one request of at most `queryTimeoutMs`,
   * or the one kept from the same question a moment ago. Throws on failure,
   * and while paused after one (see QUERY_PAUSE_MS).
   */
  async queryVector(text: string): Promise<Float32Array> {
    const kept = this.queries.get(text);
    if (kept) {
      // Most recently used last: the first key is the one to drop.
      this.queries.delete(text);
      this.queries.set(text, kept);
      return kept;
    }
    if (this.paused) {
      throw new EmbeddingError('unreachable', 'The embedding service failed a moment ago');
    }
    try {
      const [vector] = await this.client.embed([text], { timeoutMs: this.options.queryTimeoutMs });
      const unit = normalized(vector!);
      this.queries.set(text, unit);
      if (this.queries.size > QUERY_CACHE_SIZE) {
        this.queries.delete(this.queries.keys().next().value!);
      }
      return unit;
    } catch (error) {
      this.pausedUntil = Date.now() + QUERY_PAUSE_MS;
      throw error;
    }
  }
}

/** The semantic index's deps from the settings: `embedder` null unless EMBEDDINGS_URL is set. */
export function embeddingsFromConfig(
  db: Db,
  config: Pick<Config, 'EMBEDDINGS_URL' | 'EMBEDDINGS_MODEL' | 'EMBEDDINGS_API_KEY'>,
  onError?: EmbeddingsDeps['onError'],
): EmbeddingsDeps {
  if (!config.EMBEDDINGS_URL || !config.EMBEDDINGS_MODEL) return { db, embedder: null, onError };
  const client = new EmbeddingClient({
    url: config.EMBEDDINGS_URL,
    model: config.EMBEDDINGS_MODEL,
    apiKey: config.EMBEDDINGS_API_KEY,
  });
  return { db, embedder: new Embedder(client), onError };
}

// ── reads for recall ────────────────────────────────────────────────────────

/** Candidates one `semanticScores` call scores at most (recall asks for a few hundred). */
export const MAX_SCORED_IDS = 1_000;

/**
 * Cosine similarity, in [-1, 1], of the question with each of these
 * observations of the space that has a vector of the current model; ids
 * without one (not embedded yet, refused, another space's, unknown) are
 * absent. One request to the endpoint (at most QUERY_TIMEOUT_MS) and one
 * read of at most MAX_SCORED_IDS vectors. Null when embeddings are off or
 * anything fails: recall then ranks lexically.
 */
export async function semanticScores(
  deps: EmbeddingsDeps,
  spaceId: string,
  query: string,
  observationIds: string[],
): Promise<Map<string, number> | null> {
  const { embedder } = deps;
  if (!embedder) return null;
  if (embedder.paused) return null;
  const ids = [...new Set(observationIds.filter(isUuid))].slice(0, MAX_SCORED_IDS);
  if (ids.length === 0) return new Map();
  try {
    const [question, rows] = await Promise.all([
      embedder.queryVector(query),
      repo.vectorsOf(deps.db, spaceId, embedder.model, ids),
    ]);
    const scores = new Map<string, number>();
    for (const row of rows) {
      const score = cosine(question, fromBase64(row.vector));
      if (score !== undefined) scores.set(row.observation_id, score);
    }
    return scores;
  } catch (error) {
    reportReadFailure(deps, error);
    return null;
  }
}

/**
 * Vectors `semanticCandidates` compares a question with at most. The scan is
 * brute force (neither database has a vector index): every vector of the
 * space is read in one statement and scored in JS, so its cost grows with
 * the space. Measured with 768-dimension vectors on this 2-core machine
 * under load: 5,000 in 64 ms on PGlite and 46 ms on PostgreSQL, 20,000 in
 * 445 and 195 ms (scoring recall's 300 candidates with `semanticScores`:
 * 5-7 ms on both). Past the bound the arm finds no candidates of its own and
 * only re-scores recall's lexical ones.
 */
export const MAX_SCANNED_VECTORS = 5_000;
const MAX_CANDIDATES = 200;

export interface SemanticCandidate {
  observationId: string;
  score: number;
}

/**
 * The `k` (at most 200) observations of the space nearest the question,
 * best first, found by comparing it with every vector stored in the space —
 * so recall can find what shares no word with the question. Null when
 * embeddings are off, anything fails, or the space may hold more than
 * MAX_SCANNED_VECTORS vectors (judged by counters: `scanSizeOf`). An id may
 * name an observation deleted a moment ago (its vector goes at the indexer's
 * next run): the caller reads the observations anyway.
 */
export async function semanticCandidates(
  deps: EmbeddingsDeps,
  spaceId: string,
  query: string,
  k: number,
): Promise<SemanticCandidate[] | null> {
  const { embedder } = deps;
  if (!embedder) return null;
  if (embedder.paused) return null;
  const wanted = Math.max(1, Math.min(MAX_CANDIDATES, Math.floor(k)));
  try {
    const size = await repo.scanSizeOf(deps.db, spaceId, embedder.model);
    // The account's vectors bound the space's; its observations bound them too, but for
    // vectors of observations deleted a moment ago (the read below is bounded anyway).
    const held = Math.min(size?.accountVectors ?? 0, size?.observations ?? 0);
    if (held > MAX_SCANNED_VECTORS) return null;
    if ((size?.accountVectors ?? 0) === 0) return [];
    const [question, rows] = await Promise.all([
      embedder.queryVector(query),
      // Bounded even if the space grew since its count was read.
      repo.allVectors(deps.db, spaceId, embedder.model, MAX_SCANNED_VECTORS),
    ]);
    const best: SemanticCandidate[] = [];
    const scratch = Buffer.alloc(MAX_DIMENSIONS);
    for (const row of rows) {
      const score = cosine(question, fromBase64(row.vector, scratch));
      if (score === undefined) continue;
      if (best.length === wanted && score <= best[wanted - 1]!.score) continue;
      keepSorted(best, { observationId: row.observation_id, score }, wanted);
    }
    return best;
  } catch (error) {
    reportReadFailure(deps, error);
    return null;
  }
}

/** Inserts `item` into `list` (best first), keeping at most `size`. */
function keepSorted(list: SemanticCandidate[], item: SemanticCandidate, size: number): void {
  let index = list.length;
  while (index > 0 && list[index - 1]!.score < item.score) index -= 1;
  list.splice(index, 0, item);
  if (list.length > size) list.pop();
}

let lastReadReport = 0;

/** Reported at most once a minute: an endpoint that is down would otherwise log every recall. */
function reportReadFailure(deps: EmbeddingsDeps, error: unknown): void {
  if (Date.now() - lastReadReport < 60_000) return;
  lastReadReport = Date.now();
  deps.onError?.(error, 'semantic ranking skipped; recall answered lexically');
}

// ── the dashboard's line ────────────────────────────────────────────────────

/**
 * The account's semantic index, every space together: observations embedded
 * and waiting, the model, and the last failure (the account's own, else the
 * endpoint's).
 * Counters only (migration 019): the same few index reads at any size. Null
 * when embeddings are off.
 */
export async function embeddingStatus(
  deps: EmbeddingsDeps,
  accountId: string,
): Promise<EmbeddingStatus | null> {
  const { embedder } = deps;
  if (!embedder) return null;
  const row = await repo.statusOf(deps.db, accountId, embedder.model);
  const observations = row?.observations ?? 0;
  // Vectors of a model being replaced count for nothing; a vector whose
  // observation went a moment ago (removed at the next run) for nothing more.
  const vectors = row?.model === embedder.model ? (row.vectors ?? 0) : 0;
  const embedded = Math.max(0, Math.min(vectors, observations));
  return {
    model: embedder.model,
    embedded,
    pending: observations - embedded,
    lastError: row?.account_error ?? row?.model_error ?? null,
  };
}

/** What recall and analytics call: the reads above with their deps given, and the embedder (null without an endpoint). */
export function createEmbeddingsService(deps: EmbeddingsDeps) {
  return {
    embedder: deps.embedder,
    ...bindService(deps, { semanticScores, semanticCandidates, embeddingStatus }),
  };
}

export type EmbeddingsService = ReturnType<typeof createEmbeddingsService>;
