/**
 * Duplicate-finding quality (issue 59): an evaluation set generated from a
 * seed (generate.ts: people, companies, products, technologies and places,
 * with duplicates of every kind planted and hard negatives beside them) is
 * loaded through the REST API of a real `engram serve` on a fresh database
 * and account; once the background finder has caught up (`upToDate`), the
 * first candidates of `GET /api/duplicates` are read and scored: how many
 * planted pairs are among the first N (precision and recall), and how many
 * hard negatives.
 *
 *   npm run bench:duplicates                       # seeds 1, 2, 3 on PGlite
 *   DUP_SEEDS=7 DUP_MISSES=1 npm run bench:duplicates
 *   BENCH_DB=both npm run bench:duplicates
 *
 * Options (environment):
 *   BENCH_DB            pglite (default) | postgres | both
 *   BENCH_DATABASE_URL  PostgreSQL server (TEST_DATABASE_URL, else
 *                       postgres://postgres@127.0.0.1:5432/test); a database is
 *                       created there and dropped after
 *   DUP_SEEDS           seeds, comma separated (default 1,2,3)
 *   DUP_ENTITIES        entities in all (default 2000)
 *   DUP_PLANTED         planted duplicate pairs (default 100)
 *   DUP_NEGATIVES       hard negative pairs (default 100)
 *   DUP_TOP             the first N candidates scored (default 150)
 *   DUP_CONCURRENCY     requests in flight while loading (default 2)
 *   DUP_LOAD            rest (default: one entity or relation a request) | mcp (an
 *                       import: create_entities and create_relations, 500 a call)
 *   DUP_MISSES          1 prints the planted pairs missed and the hard negatives and
 *                       other pairs among the first N
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  generateSet,
  NEGATIVE_KINDS,
  PLANTED_KINDS,
  type EvalSet,
  type NegativeKind,
  type PlantedKind,
} from './generate.js';
import { importSet } from './import.js';
import { startEngram, type Api, type DbKind } from '../recall/server.js';

interface Candidate {
  id: string;
  score: number;
  reasons: string[];
  entities: { id: string; name: string; type: string }[];
}
interface CandidateList {
  candidates: Candidate[];
  nextCursor: string | null;
  upToDate: boolean;
}

const env = process.env;
const which = env.BENCH_DB ?? 'pglite';
if (!['pglite', 'postgres', 'both'].includes(which)) {
  throw new Error('BENCH_DB must be pglite, postgres or both');
}
const kinds: DbKind[] = which === 'both' ? ['pglite', 'postgres'] : [which as DbKind];
const postgresUrl =
  env.BENCH_DATABASE_URL ?? env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seeds = (env.DUP_SEEDS ?? '1,2,3').split(',').map(Number);
const size = {
  entities: Number(env.DUP_ENTITIES ?? 2000),
  planted: Number(env.DUP_PLANTED ?? 100),
  negatives: Number(env.DUP_NEGATIVES ?? 100),
};
const top = Number(env.DUP_TOP ?? 150);
const concurrency = Number(env.DUP_CONCURRENCY ?? 2);
const showMisses = env.DUP_MISSES === '1';
const loadBy = env.DUP_LOAD === 'mcp' ? 'mcp' : 'rest';

/** Runs `work` over `items`, `concurrency` at a time, in order of start. */
async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * A write, again after a pause while the server answers 503 or 429 (it says
 * nothing was written: a loaded machine, not a failure of what is measured).
 */
async function write<T>(api: Api, path: string, body: unknown, expect = 201): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.request<T>('POST', path, body, expect);
    } catch (error) {
      if (attempt >= 10 || !/: (503|429) /.test(String(error))) throw error;
      await sleep(500 * attempt);
    }
  }
}

async function load(api: Api, set: EvalSet): Promise<void> {
  const ids = new Map<string, string>();
  await inParallel(set.entities, async (entity) => {
    const created = await write<{ id: string }>(api, '/api/entities', entity);
    ids.set(entity.name, created.id);
  });
  await inParallel(set.relations, async (relation) => {
    const fromEntityId = ids.get(relation.from);
    const toEntityId = ids.get(relation.to);
    if (!fromEntityId || !toEntityId) throw new Error(`relation ${relation.from} → ${relation.to}`);
    try {
      await write(api, '/api/relations', { fromEntityId, toEntityId, type: relation.type });
    } catch (error) {
      // The same relation twice (a duplicate given its original's neighbour) is a 409: fine.
      if (!String(error).includes(': 409 ')) throw error;
    }
  });
}

async function waitUntilUpToDate(api: Api, timeoutMs = 15 * 60_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const answer = await api.request<CandidateList>('GET', '/api/duplicates?limit=1');
    if (answer.upToDate) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error('the finder did not catch up');
    await sleep(250);
  }
}

async function firstCandidates(api: Api, count: number): Promise<Candidate[]> {
  const all: Candidate[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: CandidateList = await api.request<CandidateList>('GET', `/api/duplicates?${query}`);
    all.push(...page.candidates);
    cursor = page.nextCursor;
  } while (cursor && all.length < count);
  return all;
}

const pairKey = (a: string, b: string) => [a, b].sort().join('\u0000');

interface Scored {
  seed: number;
  db: DbKind;
  candidates: number;
  plantedTop: number;
  negativesTop: number;
  plantedAll: number;
  byKind: Map<PlantedKind, { planted: number; found: number }>;
  negByKind: Map<NegativeKind, number>;
  loadS: number;
  /** The first read right after the load: how long it took, and whether it was up to date. */
  firstReadS: number;
  firstUpToDate: boolean;
  catchUpS: number;
}

function score(
  set: EvalSet,
  candidates: Candidate[],
  db: DbKind,
  times: { loaded: number; firstRead: number; firstUpToDate: boolean; caughtUp: number },
): Scored {
  const planted = new Map(set.planted.map((pair) => [pairKey(pair.a, pair.b), pair]));
  const negatives = new Map(set.negatives.map((pair) => [pairKey(pair.a, pair.b), pair]));
  const keyOf = (c: Candidate) => pairKey(c.entities[0]!.name, c.entities[1]!.name);
  const first = candidates.slice(0, top);
  const byKind = new Map(PLANTED_KINDS.map((kind) => [kind, { planted: 0, found: 0 }]));
  for (const pair of set.planted) byKind.get(pair.kind)!.planted += 1;
  const foundTop = new Set<string>();
  for (const c of first) if (planted.has(keyOf(c))) foundTop.add(keyOf(c));
  for (const key of foundTop) byKind.get(planted.get(key)!.kind)!.found += 1;
  const negByKind = new Map(NEGATIVE_KINDS.map((kind) => [kind, 0]));
  let negativesTop = 0;
  for (const c of first) {
    const negative = negatives.get(keyOf(c));
    if (negative) {
      negativesTop += 1;
      negByKind.set(negative.kind, negByKind.get(negative.kind)! + 1);
    }
  }
  if (showMisses) {
    const missed = set.planted.filter((pair) => !foundTop.has(pairKey(pair.a, pair.b)));
    console.log(`\nseed ${set.seed}, ${db}: planted pairs not among the first ${top}:`);
    for (const pair of missed) {
      const at = candidates.findIndex((c) => keyOf(c) === pairKey(pair.a, pair.b));
      console.log(
        `  [${pair.kind}] ${pair.a} ~ ${pair.b}${at >= 0 ? ` (at ${at + 1}: ${candidates[at]!.score})` : ''}`,
      );
    }
    console.log(`seed ${set.seed}, ${db}: other pairs among the first ${top}:`);
    for (const c of first) {
      if (planted.has(keyOf(c))) continue;
      const negative = negatives.get(keyOf(c));
      console.log(
        `  ${negative ? `[hard negative: ${negative.kind}] ` : ''}${c.entities.map((e) => `${e.name} (${e.type})`).join(' ~ ')}: ${c.score} ${c.reasons.join('; ')}`,
      );
    }
  }
  return {
    seed: set.seed,
    db,
    candidates: candidates.length,
    plantedTop: foundTop.size,
    negativesTop,
    plantedAll: candidates.filter((c) => planted.has(keyOf(c))).length,
    byKind,
    negByKind,
    loadS: times.loaded / 1000,
    firstReadS: times.firstRead / 1000,
    firstUpToDate: times.firstUpToDate,
    catchUpS: times.caughtUp / 1000,
  };
}

async function runOne(db: DbKind, seed: number): Promise<Scored> {
  const set = generateSet({ seed, ...size });
  const engram = await startEngram(db, postgresUrl);
  try {
    const started = performance.now();
    await (loadBy === 'mcp' ? importSet(engram.api, set, 500) : load(engram.api, set));
    const loaded = performance.now() - started;
    const firstStarted = performance.now();
    const first = await engram.api.request<CandidateList>('GET', '/api/duplicates?limit=100');
    const firstRead = performance.now() - firstStarted;
    const caughtUp = await waitUntilUpToDate(engram.api);
    const candidates = await firstCandidates(engram.api, Math.max(top, 300));
    return score(set, candidates, db, {
      loaded,
      firstRead,
      firstUpToDate: first.upToDate,
      caughtUp,
    });
  } finally {
    await engram.close();
  }
}

const pct = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(0)}%`;

async function main() {
  const example = generateSet({ seed: seeds[0]!, ...size });
  console.log(
    `bench/duplicates: ${example.entities.length} entities, ${example.relations.length} relations, ${example.planted.length} planted pairs, ${example.negatives.length} hard negatives per seed; the first ${top} candidates scored; seeds ${seeds.join(', ')}; ${kinds.join(' and ')}`,
  );
  const results: Scored[] = [];
  for (const db of kinds) {
    for (const seed of seeds) {
      const result = await runOne(db, seed);
      results.push(result);
      console.log(
        `seed ${seed} (${db}): ${result.plantedTop} planted pairs and ${result.negativesTop} hard negatives among the first ${top}; loaded (${loadBy}) in ${result.loadS.toFixed(0)} s; the first read took ${result.firstReadS.toFixed(1)} s (${result.firstUpToDate ? 'up to date' : 'not up to date'}), caught up ${result.catchUpS.toFixed(1)} s after it`,
      );
    }
  }
  console.log(
    `\n| database | seed | candidates | planted in first ${top} (recall) | precision at ${top} | hard negatives in first ${top} | planted anywhere |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(
      `| ${r.db} | ${r.seed} | ${r.candidates}${r.candidates >= Math.max(top, 300) ? '+' : ''} | ${r.plantedTop} (${pct(r.plantedTop, size.planted)}) | ${pct(r.plantedTop, Math.min(top, r.candidates))} | ${r.negativesTop} | ${r.plantedAll} |`,
    );
  }
  console.log(
    `\nPlanted pairs among the first ${top}, by kind (found / planted, all seeds and databases):\n`,
  );
  console.log('| kind | found |');
  console.log('| --- | ---: |');
  for (const kind of PLANTED_KINDS) {
    const found = results.reduce((sum, r) => sum + r.byKind.get(kind)!.found, 0);
    const planted = results.reduce((sum, r) => sum + r.byKind.get(kind)!.planted, 0);
    console.log(`| ${kind} | ${found} / ${planted} |`);
  }
  console.log(`\nHard negatives among the first ${top}, by kind (all seeds and databases):\n`);
  console.log('| kind | among the first |');
  console.log('| --- | ---: |');
  for (const kind of NEGATIVE_KINDS) {
    console.log(`| ${kind} | ${results.reduce((sum, r) => sum + r.negByKind.get(kind)!, 0)} |`);
  }
}

await main();
