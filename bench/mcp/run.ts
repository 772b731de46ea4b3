/**
 * MCP benchmark: the same seeded workload through a real MCP client against
 * Engram's /mcp (`engram serve` in its own process, PGlite by default) and
 * against the reference @modelcontextprotocol/server-memory (stdio, JSONL
 * file), at 1,000, 10,000 and 100,000 entities.
 *
 *   npm run bench:mcp
 *   BENCH_SIZES=1000,10000 npx tsx bench/mcp/run.ts
 *
 * Options (environment): BENCH_SIZES, BENCH_DB (pglite | postgres | both),
 * BENCH_DATABASE_URL, BENCH_ITERATIONS, BENCH_REF_BUDGET_S, BENCH_ANALYZE (0 to
 * skip the after-ANALYZE pass), BENCH_SERVER (process | inprocess: the app in
 * this process, where the bench can count its SQL statements), BENCH_TRACE
 * (print Engram's SQL per call and EXPLAIN ANALYZE reads slower than that many
 * ms; implies inprocess), BENCH_SERVER_REF (run the server sources of a git
 * ref, for an A/B in one session), BENCH_CPU_PROF (a folder: V8 CPU profiles of
 * the server process's threads), BENCH_NODE_ARGS (more Node flags for the server
 * process, e.g. --trace-gc), BENCH_ERA (legacy: the 1.x SDK client, a 2025-era
 * session, the default; modern: the v2 SDK client on the stateless 2026-07-28
 * revision), BENCH_JSON (write results), BENCH_REFERENCE (0 skips the
 * reference: an A/B of Engram alone, without ratios).
 * See bench/README.md ("bench/mcp") for what is measured and the last results.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  startEngram,
  startEngramProcess,
  startReference,
  type DbKind,
  type ProbeReport,
  type Side,
} from './servers.js';
import { BATCH, batches, buildWorkload, pick, rng, type Workload } from './workload.js';

// ── options ─────────────────────────────────────────────────────────────────

function readOptions() {
  const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000')
    .split(',')
    .map((item) => Number(item.trim().replaceAll('_', '')));
  if (sizes.some((size) => !Number.isInteger(size) || size < 10)) {
    throw new Error('BENCH_SIZES must be a comma-separated list of integers of at least 10');
  }
  if (!['legacy', 'modern', undefined].includes(process.env.BENCH_ERA)) {
    throw new Error('BENCH_ERA must be legacy or modern');
  }
  if (!['process', 'inprocess', undefined].includes(process.env.BENCH_SERVER)) {
    throw new Error('BENCH_SERVER must be process or inprocess');
  }
  const which = process.env.BENCH_DB ?? 'pglite';
  if (!['pglite', 'postgres', 'both'].includes(which)) {
    throw new Error('BENCH_DB must be pglite, postgres or both');
  }
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 50);
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new Error('BENCH_ITERATIONS must be a positive integer');
  }
  const budget = Number(process.env.BENCH_REF_BUDGET_S ?? 40);
  if (!(budget > 0)) throw new Error('BENCH_REF_BUDGET_S must be a positive number');
  return {
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    databases: (which === 'both' ? ['pglite', 'postgres'] : [which]) as DbKind[],
    iterations,
    /** Seconds of measured calls allowed per reference operation and size. */
    referenceBudgetMs: budget * 1000,
    /** Fewest measured reference calls, whatever the budget. */
    referenceMinIterations: 3,
    postgresUrl:
      process.env.BENCH_DATABASE_URL ??
      process.env.TEST_DATABASE_URL ??
      'postgres://postgres@127.0.0.1:5432/test',
    json: process.env.BENCH_JSON,
    /** 0 skips the reference (an A/B of Engram alone): no ratios, not a verdict. */
    reference: process.env.BENCH_REFERENCE !== '0',
    /** Diagnostic: after measuring, run ANALYZE on Engram's database and measure again (0 to skip). */
    analyze: process.env.BENCH_ANALYZE !== '0',
    /** Print Engram's SQL per operation (and EXPLAIN ANALYZE of reads slower than this many ms). */
    trace: process.env.BENCH_TRACE === undefined ? undefined : Number(process.env.BENCH_TRACE || 1),
    /** Run the server sources of this git ref (process mode only): the "before" of an A/B. */
    serverRef: process.env.BENCH_SERVER_REF ?? '',
    /** Engram in its own process (default), or in this one (what SQL counting and BENCH_TRACE need). */
    inProcess:
      process.env.BENCH_SERVER === 'inprocess' ||
      (process.env.BENCH_SERVER === undefined && process.env.BENCH_TRACE !== undefined),
  };
}

const options = readOptions();

// ── operations ──────────────────────────────────────────────────────────────

type SideKind = 'engram' | 'reference';

interface Operation {
  key: string;
  /** A tool the reference does not have: measured on Engram only. */
  engramOnly?: boolean;
  /** One entity or one query per call: subject to the ≥100× target. */
  singleItem: boolean;
  describe: Record<SideKind, string>;
  /** `pass` keeps names unique when the same graph is measured twice. */
  args(
    side: SideKind,
    i: number,
    random: () => number,
    workload: Workload,
    pass: string,
  ): [string, object];
}

const ENGRAM_READ_LIMIT = 100;

const OPERATIONS: Operation[] = [
  {
    key: 'create_entities',
    singleItem: true,
    describe: {
      engram: '1 new entity, 2 observations',
      reference: '1 new entity, 2 observations',
    },
    args: (side, i, _random, _workload, pass) => [
      'create_entities',
      {
        entities: [
          {
            name: `bench-new-${side}-${pass}${i}`,
            entityType: 'concept',
            observations: [`Created by bench/mcp call ${i}`, 'Second observation'],
          },
        ],
      },
    ],
  },
  {
    key: 'add_observations',
    singleItem: true,
    describe: {
      engram: '1 observation to a random entity',
      reference: '1 observation to a random entity',
    },
    args: (_side, i, random, workload, pass) => [
      'add_observations',
      {
        observations: [
          {
            entityName: pick(random, workload.entities).name,
            contents: [
              `Added by bench/mcp ${pass}call ${i} (${random().toString(36).slice(2, 8)})`,
            ],
          },
        ],
      },
    ],
  },
  {
    key: 'create_relations',
    singleItem: true,
    describe: {
      engram: '1 new relation between two random entities',
      reference: '1 new relation between two random entities',
    },
    args: (_side, _i, random, workload, pass) => {
      const from = Math.floor(random() * workload.entities.length);
      // Any other entity: a relation cannot connect an entity to itself.
      const to =
        (from + 1 + Math.floor(random() * (workload.entities.length - 1))) %
        workload.entities.length;
      return [
        'create_relations',
        {
          relations: [
            {
              from: workload.entities[from]!.name,
              to: workload.entities[to]!.name,
              // Another pass over the same graph draws the same pairs: a new type keeps them new.
              relationType: `bench ${pass}link`,
            },
          ],
        },
      ];
    },
  },
  {
    key: 'search_nodes',
    singleItem: true,
    describe: {
      engram: 'a rare term (~10 hits), no limit',
      reference: 'a rare term (~10 hits)',
    },
    args: (_side, _i, random, workload) => [
      'search_nodes',
      { query: pick(random, workload.searchTerms) },
    ],
  },
  {
    key: 'open_nodes',
    singleItem: true,
    describe: { engram: '5 random names', reference: '5 random names' },
    args: (_side, _i, random, workload) => [
      'open_nodes',
      { names: Array.from({ length: 5 }, () => pick(random, workload.entities).name) },
    ],
  },
  {
    key: 'get_neighbors',
    engramOnly: true,
    singleItem: true,
    describe: { engram: 'a random entity, depth 1', reference: '(no such tool)' },
    args: (_side, _i, random, workload) => [
      'get_neighbors',
      { name: pick(random, workload.entities).name, depth: 1 },
    ],
  },
  {
    key: 'read_graph',
    singleItem: false,
    describe: {
      engram: `limit ${ENGRAM_READ_LIMIT}`,
      reference: 'no limit: returns the whole graph',
    },
    args: (side) => ['read_graph', side === 'engram' ? { limit: ENGRAM_READ_LIMIT } : {}],
  },
  // The deletes come last, so the reads above see the whole graph. Each call
  // removes something that exists: the entity create_entities made with the
  // same number (the reference, when capped, made fewer: its later deletes
  // find nothing), or a seeded relation or observation of its own, another
  // half of them on the second pass.
  {
    key: 'delete_relations',
    singleItem: true,
    describe: { engram: '1 seeded relation', reference: '1 seeded relation' },
    args: (_side, i, _random, workload, pass) => {
      const relation = workload.relations[seededIndex(i, workload.relations.length, pass)]!;
      return ['delete_relations', { relations: [relation] }];
    },
  },
  {
    key: 'delete_observations',
    singleItem: true,
    describe: {
      engram: '1 seeded observation of an entity',
      reference: '1 seeded observation of an entity',
    },
    args: (_side, i, _random, workload, pass) => {
      const entity = workload.entities[seededIndex(i, workload.entities.length, pass)]!;
      return [
        'delete_observations',
        { deletions: [{ entityName: entity.name, observations: [entity.observations[0]!] }] },
      ];
    },
  },
  {
    key: 'delete_entities',
    singleItem: true,
    describe: {
      engram: 'the entity create_entities made (2 observations)',
      reference: 'the entity create_entities made (2 observations)',
    },
    args: (side, i, _random, _workload, pass) => [
      'delete_entities',
      { entityNames: [`bench-new-${side}-${pass}${i}`] },
    ],
  },
];

/**
 * A seeded item for call `i` (warm-ups are negative) that no other call of
 * the run deletes: the first pass takes the first half, the second the other.
 */
function seededIndex(i: number, count: number, pass: string): number {
  const half = Math.floor(count / 2);
  return (pass ? half : 0) + ((i + 10) % half);
}

// ── measuring ───────────────────────────────────────────────────────────────

interface Measured {
  key: string;
  n: number;
  p50: number;
  p95: number;
  mean: number;
  max: number;
  /** Mean entities (or results) and relations per answer. */
  entities: number;
  relations: number;
  /** Bytes of the first answer's structured content. */
  bytes: number;
  /** Longest stall of the server's event loop while measuring, ms. */
  loopMax: number;
  /** SQL statements and SQL ms per call (Engram only). */
  statements?: number;
  sqlMs?: number;
  capped: boolean;
}

const AS_SHIPPED = 'as shipped';
const AFTER_ANALYZE = 'after ANALYZE';

interface SideRun {
  label: string;
  /** AS_SHIPPED, or AFTER_ANALYZE: the same graph re-measured after a diagnostic ANALYZE. */
  variant: string;
  kind: SideKind;
  db?: DbKind;
  bulkSeconds: number;
  bulkEntitiesSeconds: number;
  bulkRelationsSeconds: number;
  bulkStatements?: number;
  /** Longest event-loop stall during the bulk load, ms. */
  bulkLoopMax: number;
  /** Peak resident memory of the server's process during the bulk load, MB (in process: with the client and workload). */
  bulkPeakRssMb: number;
  results: Measured[];
}

interface SizeRun {
  size: number;
  relations: number;
  engram: SideRun[];
  reference: SideRun;
  /** 1-minute load average after the size was measured; above ~2 on 2 cores numbers are noisy. */
  load: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function bulkLoad(side: Side, workload: Workload, say: (line: string) => void) {
  const watch = await watchServer(side);
  const started = performance.now();
  const entityBatches = batches(workload.entities);
  let created = 0;
  for (const [index, batch] of entityBatches.entries()) {
    if (index === entityBatches.length - 1 && side.trace && options.trace !== undefined) {
      const traced = await side.trace('create_entities', { entities: batch }, Infinity);
      printTrace(say, `last create_entities batch (${batch.length})`, traced, true);
      created += batch.length;
      continue;
    }
    created += (await side.call('create_entities', { entities: batch })).entities;
    if ((index + 1) % 20 === 0) {
      say(`  entities ${created.toLocaleString('en-US')} (${secondsSince(started)} s)`);
    }
  }
  const entitiesDone = performance.now();
  let related = 0;
  const relationBatches = batches(workload.relations);
  for (const [index, batch] of relationBatches.entries()) {
    if (index === relationBatches.length - 1 && side.trace && options.trace !== undefined) {
      const traced = await side.trace('create_relations', { relations: batch }, Infinity);
      printTrace(say, `last create_relations batch (${batch.length})`, traced, true);
      related += batch.length;
      continue;
    }
    related += (await side.call('create_relations', { relations: batch })).relations;
    if ((index + 1) % 40 === 0) {
      say(`  relations ${related.toLocaleString('en-US')} (${secondsSince(started)} s)`);
    }
  }
  const done = performance.now();
  if (created !== workload.entities.length || related !== workload.relations.length) {
    throw new Error(
      `${side.label}: bulk load created ${created} entities and ${related} relations, expected ${workload.entities.length} and ${workload.relations.length}`,
    );
  }
  const watched = await watch();
  return {
    bulkLoopMax: watched.loopMaxMs,
    bulkPeakRssMb: watched.peakRssMb,
    bulkSeconds: (done - started) / 1000,
    bulkEntitiesSeconds: (entitiesDone - started) / 1000,
    bulkRelationsSeconds: (done - entitiesDone) / 1000,
  };
}

/**
 * Watches the server's event loop (1 ms resolution) and resident memory from
 * now on: in its own process through its probe, else in this process (which
 * then also holds the client and the workload). `stop` gives the longest
 * stall (ms) and the peak memory (MB).
 */
async function watchServer(side: Side): Promise<() => Promise<ProbeReport>> {
  if (side.probe) {
    const probe = side.probe;
    await probe();
    return probe;
  }
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100);
  return async () => {
    histogram.disable();
    clearInterval(timer);
    const rss = process.memoryUsage.rss();
    return {
      loopMaxMs: histogram.max / 1e6,
      peakRssMb: Math.max(peak, rss) / 2 ** 20,
      rssMb: rss / 2 ** 20,
    };
  };
}

/** The reference's place in a run that skipped it (BENCH_REFERENCE=0): nothing measured. */
function skippedReference(): SideRun {
  log('reference skipped (BENCH_REFERENCE=0): no ratios in this run');
  return {
    label: 'reference (skipped)',
    variant: AS_SHIPPED,
    kind: 'reference',
    bulkSeconds: NaN,
    bulkEntitiesSeconds: NaN,
    bulkRelationsSeconds: NaN,
    bulkLoopMax: NaN,
    bulkPeakRssMb: NaN,
    results: [],
  };
}

const secondsSince = (start: number) => ((performance.now() - start) / 1000).toFixed(1);

async function measure(
  side: Side,
  kind: SideKind,
  operation: Operation,
  workload: Workload,
  pass = '',
): Promise<Measured> {
  // The same seed per operation and size: both servers get the same calls.
  const seed = workload.size * 31 + operation.key.length * 7 + operation.key.charCodeAt(0);
  let random = rng(seed + 1);
  const call = async (i: number) => {
    const [tool, args] = operation.args(kind, i, random, workload, pass);
    const started = performance.now();
    const answer = await side.call(tool, args as Record<string, unknown>);
    return { ms: performance.now() - started, answer };
  };

  // Warm-up: JIT, caches, prepared plans. Its time also sizes the reference's run.
  const warmups = kind === 'engram' ? 5 : 1;
  let warmMs = 0;
  for (let i = 0; i < warmups; i++) warmMs = (await call(-1 - i)).ms;
  random = rng(seed);

  let n = options.iterations;
  let capped = false;
  if (kind === 'reference') {
    const affordable = Math.floor(options.referenceBudgetMs / Math.max(warmMs, 0.01));
    const allowed = Math.max(options.referenceMinIterations, affordable);
    if (allowed < n) {
      n = allowed;
      capped = true;
    }
  }

  const before = side.sql?.();
  const watch = await watchServer(side);
  const times: number[] = [];
  let entities = 0;
  let relations = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const { ms, answer } = await call(i);
    times.push(ms);
    entities += answer.entities;
    relations += answer.relations;
    if (i === 0) bytes = Buffer.byteLength(JSON.stringify(answer.structured));
  }
  const after = side.sql?.();
  const loopMax = (await watch()).loopMaxMs;
  const sorted = [...times].sort((a, b) => a - b);
  return {
    key: operation.key,
    n,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: times.reduce((sum, ms) => sum + ms, 0) / n,
    max: sorted[sorted.length - 1]!,
    entities: entities / n,
    relations: relations / n,
    bytes,
    loopMax,
    ...(before && after
      ? {
          statements: (after.statements - before.statements) / n,
          sqlMs: (after.ms - before.ms) / n,
        }
      : {}),
    capped,
  };
}

async function runSide(
  start: () => Promise<Side>,
  kind: SideKind,
  workload: Workload,
  db?: DbKind,
): Promise<SideRun[]> {
  const side = await start();
  const say = (line: string) => log(`[${workload.size} ${side.label}] ${line}`);
  try {
    say(
      `bulk load: ${workload.entities.length.toLocaleString('en-US')} entities, ` +
        `${workload.relations.length.toLocaleString('en-US')} relations in batches of ${BATCH}`,
    );
    const sqlBefore = side.sql?.().statements;
    const bulk = await bulkLoad(side, workload, say);
    const sqlAfter = side.sql?.().statements;
    say(
      `bulk load ${bulk.bulkSeconds.toFixed(1)} s (entities ${bulk.bulkEntitiesSeconds.toFixed(1)} s, relations ${bulk.bulkRelationsSeconds.toFixed(1)} s)` +
        `, ${rate(workload.entities.length, bulk.bulkEntitiesSeconds)} entities/s, ${rate(workload.relations.length, bulk.bulkRelationsSeconds)} relations/s` +
        `, loop max ${fmtMs(bulk.bulkLoopMax)}, peak RSS ${bulk.bulkPeakRssMb.toFixed(0)} MB` +
        (sqlBefore !== undefined && sqlAfter !== undefined
          ? `, ${(sqlAfter - sqlBefore).toLocaleString('en-US')} SQL statements`
          : ''),
    );
    const measureAll = async (pass: string) => {
      const results: Measured[] = [];
      for (const operation of OPERATIONS) {
        if (operation.engramOnly && kind === 'reference') continue;
        const measured = await measure(side, kind, operation, workload, pass);
        say(
          `${pass}${operation.key.padEnd(16)} n=${String(measured.n).padStart(3)} p50 ${fmtMs(measured.p50)} p95 ${fmtMs(measured.p95)}` +
            ` (${measured.entities.toFixed(1)} entities, ${measured.relations.toFixed(1)} relations, ${fmtBytes(measured.bytes)})` +
            ` loop max ${fmtMs(measured.loopMax)}` +
            (measured.statements !== undefined
              ? `, ${measured.statements.toFixed(1)} SQL/call, SQL ${fmtMs(measured.sqlMs!)}`
              : '') +
            (measured.capped ? ' [capped]' : ''),
        );
        results.push(measured);
        if (side.trace && options.trace !== undefined) {
          const [tool, args] = operation.args(kind, 100_000, rng(7), workload, pass);
          const traced = await side.trace(tool, args as Record<string, unknown>, options.trace);
          printTrace(say, `one ${operation.key} call`, traced, false);
        }
      }
      say(
        `load average ${loadavg()
          .map((value) => value.toFixed(1))
          .join(' ')}`,
      );
      return results;
    };
    const base = {
      kind,
      ...(db ? { db } : {}),
      ...bulk,
      ...(sqlBefore !== undefined && sqlAfter !== undefined
        ? { bulkStatements: sqlAfter - sqlBefore }
        : {}),
    };
    const runs: SideRun[] = [
      { ...base, label: side.label, variant: AS_SHIPPED, results: await measureAll('') },
    ];
    if (side.analyze && options.analyze) {
      const started = performance.now();
      await side.analyze();
      say(`ANALYZE took ${secondsSince(started)} s; measuring again`);
      runs.push({
        ...base,
        label: `${side.label} after ANALYZE`,
        variant: AFTER_ANALYZE,
        results: await measureAll('analyzed-'),
      });
    }
    return runs;
  } finally {
    await side.close();
  }
}

function printTrace(
  say: (line: string) => void,
  what: string,
  traced: Awaited<ReturnType<NonNullable<Side['trace']>>>,
  aggregate: boolean,
) {
  const total = traced.reduce((sum, item) => sum + item.statement.ms, 0);
  say(`  SQL of ${what}: ${traced.length} statements, ${fmtMs(total)}`);
  const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 150);
  if (aggregate) {
    const groups = new Map<string, { count: number; ms: number }>();
    for (const { statement } of traced) {
      const key = oneLine(statement.sql).slice(0, 90);
      const group = groups.get(key) ?? { count: 0, ms: 0 };
      group.count += 1;
      group.ms += statement.ms;
      groups.set(key, group);
    }
    for (const [key, group] of [...groups].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8)) {
      say(`    ${String(group.count).padStart(5)} × ${fmtMs(group.ms).padStart(9)}  ${key}`);
    }
    return;
  }
  for (const { statement, plan } of traced) {
    say(
      `    ${fmtMs(statement.ms).padStart(9)} ${String(statement.rows).padStart(4)} rows  ${oneLine(statement.sql)}`,
    );
    if (plan) for (const line of plan.split('\n')) say(`        ${line}`);
  }
}

// ── report ──────────────────────────────────────────────────────────────────

function fmtMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

const rate = (count: number, seconds: number) =>
  Math.round(count / seconds).toLocaleString('en-US');

function fmtBytes(bytes: number): string {
  if (bytes >= 1_048_576) return `${(bytes / 1_048_576).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}

function fmtRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return '–';
  if (ratio >= 100) return `${ratio.toFixed(0)}×`;
  if (ratio >= 10) return `${ratio.toFixed(1)}×`;
  return `${ratio.toFixed(2)}×`;
}

function table(headers: string[], rows: string[][], right: boolean[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (right[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (right[column] ? `${'-'.repeat(width + 1)}:` : `${'-'.repeat(width + 2)}`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

function report(
  runs: SizeRun[],
  db: DbKind,
  variant: string,
): { text: string; verdicts: string[] } {
  const engramOf = (run: SizeRun) =>
    run.engram.find((side) => side.db === db && side.variant === variant)!;
  const resultOf = (side: SideRun, key: string) =>
    side.results.find((result) => result.key === key);
  const out: string[] = [];

  out.push(
    table(
      [
        'bulk load',
        'entities',
        'Engram entities/s',
        'Engram relations/s',
        'Engram total',
        'reference total',
        'ratio',
        'Engram loop max',
        'Engram peak RSS*',
        'reference peak RSS',
      ],
      runs.map((run) => {
        const engram = engramOf(run);
        return [
          `${run.relations.toLocaleString('en-US')} relations`,
          run.size.toLocaleString('en-US'),
          rate(run.size, engram.bulkEntitiesSeconds),
          rate(run.relations, engram.bulkRelationsSeconds),
          `${engram.bulkSeconds.toFixed(1)} s`,
          `${run.reference.bulkSeconds.toFixed(1)} s`,
          fmtRatio(run.reference.bulkSeconds / engram.bulkSeconds),
          fmtMs(engram.bulkLoopMax),
          `${engram.bulkPeakRssMb.toFixed(0)} MB`,
          `${run.reference.bulkPeakRssMb.toFixed(0)} MB`,
        ];
      }),
      [false, true, true, true, true, true, true, true, true, true],
    ),
  );
  out.push(
    options.inProcess
      ? '* resident memory of the bench process: the Engram server, the MCP client and the workload arrays together.'
      : "* resident memory of the server's own process during the load (the reference's likewise).",
  );

  const rows: string[][] = [];
  for (const operation of OPERATIONS) {
    for (const run of runs) {
      const engram = resultOf(engramOf(run), operation.key)!;
      const reference = resultOf(run.reference, operation.key);
      rows.push([
        operation.key,
        run.size.toLocaleString('en-US'),
        `${fmtMs(engram.p50)} / ${fmtMs(engram.p95)}`,
        fmtMs(engram.loopMax),
        reference ? `${fmtMs(reference.p50)} / ${fmtMs(reference.p95)}` : '–',
        reference ? fmtRatio(reference.p50 / engram.p50) : '–',
        `${engram.n} / ${reference ? `${reference.n}${reference.capped ? '*' : ''}` : '–'}`,
        `${engram.entities.toFixed(1)}e ${engram.relations.toFixed(1)}r / ` +
          (reference
            ? `${reference.entities.toFixed(1)}e ${reference.relations.toFixed(1)}r`
            : '–'),
        engram.statements !== undefined ? engram.statements.toFixed(1) : '–',
      ]);
    }
  }
  const engramLabel = runs[0] ? engramOf(runs[0]).label : 'Engram';
  out.push('');
  out.push(
    table(
      [
        'operation',
        'entities',
        `${engramLabel} p50 / p95`,
        'loop max',
        'reference p50 / p95',
        'ratio',
        'calls (E / ref)',
        'answer (E / ref)',
        'SQL/call',
      ],
      rows,
      [false, true, true, true, true, true, true, true, true],
    ),
  );

  // Targets of the graph-engine issue.
  const verdicts: string[] = [];
  const judge = (ok: boolean, real: boolean) => (!real ? 'info' : ok ? 'PASS' : 'MISS');
  verdicts.push('Bulk load: ≥ 10,000 entities/s and ≥ 20,000 relations/s at every size');
  for (const run of runs) {
    const engram = engramOf(run);
    const entities = run.size / engram.bulkEntitiesSeconds;
    const relations = run.relations / engram.bulkRelationsSeconds;
    verdicts.push(
      `  ${judge(entities >= 10_000 && relations >= 20_000, true).padEnd(4)} ${run.size.toLocaleString('en-US').padStart(9)}: ${rate(run.size, engram.bulkEntitiesSeconds)} entities/s, ${rate(run.relations, engram.bulkRelationsSeconds)} relations/s, ${engram.bulkSeconds.toFixed(1)} s`,
    );
  }
  const at100k = runs.find((run) => run.size === 100_000);
  const at1k = runs.find((run) => run.size === 1_000);
  const largest = runs[runs.length - 1]!;
  const top = at100k ?? largest;
  const note = at100k
    ? ''
    : ` (100,000 not run: shown at ${largest.size.toLocaleString('en-US')}, not a verdict)`;
  const single = OPERATIONS.filter((operation) => operation.singleItem);
  verdicts.push(`Single operations at 100,000: p50 ≤ 5 ms and ≥ 100× the reference${note}`);
  for (const operation of single) {
    const engram = resultOf(engramOf(top), operation.key)!;
    const reference = resultOf(top.reference, operation.key);
    const ratio = reference ? reference.p50 / engram.p50 : Infinity;
    verdicts.push(
      `  ${judge(engram.p50 <= 5 && ratio >= 100, Boolean(at100k)).padEnd(4)} ${operation.key.padEnd(16)} p50 ${fmtMs(engram.p50).padStart(8)}  ${reference ? `${fmtRatio(ratio)} the reference` : options.reference ? '(no reference tool)' : '(reference skipped)'}`,
    );
  }
  verdicts.push(
    `Flat: p50 at 100,000 ≤ 1.5× p50 at 1,000${at1k && at100k ? '' : ' (needs both sizes: not a verdict)'}`,
  );
  for (const operation of single) {
    const low = resultOf(engramOf(at1k ?? runs[0]!), operation.key)!;
    const high = resultOf(engramOf(top), operation.key)!;
    verdicts.push(
      `  ${judge(high.p50 <= 1.5 * low.p50, Boolean(at1k && at100k)).padEnd(4)} ${operation.key.padEnd(16)} ${fmtMs(low.p50).padStart(9)} → ${fmtMs(high.p50).padStart(9)} (${fmtRatio(high.p50 / low.p50)})`,
    );
  }
  const stalls = runs.flatMap((run) => {
    const engram = engramOf(run);
    return [engram.bulkLoopMax, ...engram.results.map((result) => result.loopMax)];
  });
  verdicts.push(
    `  ${judge(Math.max(...stalls) < 20, true).padEnd(4)} event-loop stall < 20 ms throughout: max ${fmtMs(Math.max(...stalls))}`,
  );
  out.push('');
  out.push(...verdicts);
  return { text: out.join('\n'), verdicts };
}

// ── main ────────────────────────────────────────────────────────────────────

async function main() {
  const started = performance.now();
  log(
    `bench/mcp: sizes ${options.sizes.join(', ')}; Engram on ${options.databases.join(' and ')}, ` +
      `${process.env.BENCH_ERA === 'modern' ? 'v2 client, 2026-07-28 era' : '1.x client, 2025-era session'}; ` +
      `${options.iterations} calls per operation (reference capped at ~${options.referenceBudgetMs / 1000} s of calls per operation and size, at least ${options.referenceMinIterations})`,
  );
  log(
    `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GB, load ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  const runs: SizeRun[] = [];
  for (const size of options.sizes) {
    const workload = buildWorkload(size);
    log(
      `── ${size.toLocaleString('en-US')} entities, ${workload.relations.length.toLocaleString('en-US')} relations, ` +
        `${workload.searchTerms.length.toLocaleString('en-US')} search terms of ~${Math.round(size / workload.searchTerms.length)} hits`,
    );
    const engram: SideRun[] = [];
    for (const db of options.databases) {
      engram.push(
        ...(await runSide(
          () =>
            options.inProcess
              ? startEngram(db, options.postgresUrl, log)
              : startEngramProcess(db, options.postgresUrl, log, options.serverRef),
          'engram',
          workload,
          db,
        )),
      );
    }
    const [reference] = options.reference
      ? await runSide(() => startReference(log), 'reference', workload)
      : [skippedReference()];
    runs.push({
      size,
      relations: workload.relations.length,
      engram,
      reference: reference!,
      load: loadavg()[0]!,
    });
  }

  console.log('');
  console.log(
    `MCP benchmark: Engram /mcp (Streamable HTTP, ${options.inProcess ? 'in-process app' : 'engram serve in its own process'}) vs @modelcontextprotocol/server-memory (stdio)`,
  );
  console.log(
    'Client-observed latency of one tools/call through @modelcontextprotocol/sdk Client, sequential calls. Ratio = reference p50 / Engram p50.',
  );
  for (const operation of OPERATIONS) {
    console.log(
      `  ${operation.key.padEnd(16)} Engram: ${operation.describe.engram}; reference: ${operation.describe.reference}`,
    );
  }
  console.log(
    `  * reference calls capped by a ${options.referenceBudgetMs / 1000} s budget per operation and size (at least ${options.referenceMinIterations}); it loads and rewrites the whole JSONL file on every call.`,
  );
  console.log(
    `  load average after each size: ${runs.map((run) => `${run.size.toLocaleString('en-US')}: ${run.load.toFixed(1)}`).join(', ')} (2 cores: above ~2 means other work shared the CPU and numbers are noisy)`,
  );
  const reports: Record<string, string[]> = {};
  for (const db of options.databases) {
    for (const variant of [AS_SHIPPED, AFTER_ANALYZE]) {
      if (
        !runs.every((run) => run.engram.some((side) => side.db === db && side.variant === variant))
      ) {
        continue;
      }
      console.log('');
      console.log(
        variant === AS_SHIPPED
          ? `## Engram on ${db}, as shipped`
          : `## Engram on ${db}, diagnostic: the same graphs re-measured after a manual ANALYZE (beyond the server's own upkeep, db/upkeep.ts)`,
      );
      console.log('');
      const { text, verdicts } = report(runs, db, variant);
      console.log(text);
      reports[`${db} ${variant}`] = verdicts;
    }
  }
  console.log('');
  console.log(`elapsed ${((performance.now() - started) / 60_000).toFixed(1)} min`);
  if (options.json) {
    await writeFile(options.json, JSON.stringify({ options, runs, verdicts: reports }, null, 2));
    log(`results written to ${options.json}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
