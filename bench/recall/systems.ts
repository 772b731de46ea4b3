/**
 * The systems the bench compares, each answering a question with the refs of
 * the set's memories it returns (best first) and the characters it returns:
 * recall through `GET /api/recall`, Engram's entity search through
 * `GET /api/entities?query=`, and the BM25 baselines ranked in this process.
 */
import { performance } from 'node:perf_hooks';
import { Bm25, namedEntityBoost, plainTokens, stemmedTokens, type Document } from './baselines.js';
import { memoryKey, type Question } from './data.js';
import type { Answer } from './metrics.js';
import type { Api } from './server.js';

export interface RecallResultRow {
  observation: string;
  entityName: string;
  validFrom?: string | null;
  validTo?: string | null;
  createdAt?: string;
  confidence?: number;
}

/** What a question is asked with besides its words: a time range, `now`, abstaining or not. */
export interface RecallArgs {
  since?: string | undefined;
  until?: string | undefined;
  now?: string | undefined;
  /** False: best-effort results (the server's default is true). */
  abstain?: boolean | undefined;
}

export class RecallMissing extends Error {}

/** Ref of each result that is a memory of the set, null for any other (the filler's). */
function refsOf(results: RecallResultRow[], refByKey: Map<string, string>): (string | null)[] {
  return results.map(
    (result) => refByKey.get(memoryKey(result.entityName, result.observation)) ?? null,
  );
}

export async function askRecall(
  api: Api,
  question: string,
  limit: number,
  refByKey: Map<string, string>,
  args: RecallArgs = {},
): Promise<Answer & { results: RecallResultRow[] }> {
  const params = new URLSearchParams({ q: question, limit: String(limit) });
  for (const name of ['since', 'until', 'now'] as const) {
    if (args[name]) params.set(name, args[name]);
  }
  if (args.abstain !== undefined) params.set('abstain', String(args.abstain));
  const path = `/api/recall?${params}`;
  const started = performance.now();
  const response = await api.raw(path);
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status === 404 && !text.includes('"results"')) {
    throw new RecallMissing(
      `GET /api/recall answered 404 (${text.slice(0, 120)}): this server has no recall yet ` +
        '(issue 32). The baselines above ran; build the tree with recall and run again.',
    );
  }
  if (!response.ok) throw new Error(`GET /api/recall: ${response.status} ${text.slice(0, 300)}`);
  const { results, abstained } = JSON.parse(text) as {
    results: RecallResultRow[];
    abstained?: boolean;
  };
  return {
    refs: refsOf(results, refByKey),
    abstained: abstained ?? false,
    confidences: results.map((result) => result.confidence ?? Number.NaN),
    dates: results.map((result) => ({
      validFrom: result.validFrom ?? null,
      validTo: result.validTo ?? null,
    })),
    chars: results.reduce((sum, result) => sum + result.observation.length, 0),
    ms,
    results,
  };
}

/** Engram's entity search (GET /api/entities?query=, what search_nodes runs): a hit is the answer's entity. */
export async function askEntitySearch(
  api: Api,
  question: Question,
  limit: number,
  entityOfRef: Map<string, string>,
): Promise<Answer> {
  const path = `/api/entities?${new URLSearchParams({ query: question.question.slice(0, 500), limit: String(limit) })}`;
  const started = performance.now();
  const { entities } = await api.request<{
    entities: { name: string; observations: { content: string }[] }[];
  }>('GET', path);
  const ms = performance.now() - started;
  return {
    refs: entities.map(
      (entity) => question.evidence.find((ref) => entityOfRef.get(ref) === entity.name) ?? null,
    ),
    chars: entities.reduce(
      (sum, entity) => sum + entity.observations.reduce((n, o) => n + o.content.length, 0),
      0,
    ),
    ms,
  };
}

export function bm25Systems(documents: Document[]) {
  const plain = new Bm25(documents, plainTokens);
  const stemmed = new Bm25(documents, stemmedTokens);
  return {
    BM25: (q: string, k: number) => plain.search(q, k),
    'BM25 + stemming + stop words': (q: string, k: number) => stemmed.search(q, k),
    'BM25 + stemming + stop words + named people ×2': (q: string, k: number) =>
      stemmed.search(q, k, namedEntityBoost(q)),
  };
}
