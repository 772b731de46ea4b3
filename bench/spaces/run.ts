/**
 * Memory spaces at scale (issue 36, decision 023): one account on the team
 * plan with BENCH_SPACES spaces (one per end user of an app), each holding 3
 * entities (2 observations each) and 1 relation. Times the real HTTP path
 * (app.inject with an API key: routing, auth, space resolution, validation,
 * service, SQL, serialization) of creating the spaces, filling them, paging
 * through them, and reading inside random ones, on PGlite and PostgreSQL.
 *
 *   npm run bench:spaces
 *   BENCH_SPACES=2000 BENCH_ITERATIONS=50 BENCH_DB=both npm run bench:spaces
 *
 * See bench/README.md for the options and the last measured results.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { SPACE_HEADER } from '@engram/shared';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../packages/server/src/app.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { openBenchDatabase } from '../graph/bench-database.js';
import { createRuntime, type Runtime } from '../../packages/server/src/runtime.js';
import { cpuBetween, cpuNow, signUpOnTeamPlan } from '../graph/bench-account.js';

type DbKind = 'pglite' | 'postgres';

const options = readOptions();

/** p50 targets of issue 36, ms. */
const TARGET = { create: 20, listPage: 20, lastPageOverFirst: 2, readInSpace: 20 };

/** Spaces are created in alternating runs of this many: by POST /api/spaces, then on first write. */
const CREATE_RUN = 50;

function readOptions() {
  const spaces = Number(process.env.BENCH_SPACES ?? 10_000);
  if (!Number.isInteger(spaces) || spaces < 20 || spaces > 99_999) {
    throw new Error('BENCH_SPACES must be an integer from 20 to 99,999');
  }
  const which = process.env.BENCH_DB ?? 'pglite';
  if (!['pglite', 'postgres', 'both'].includes(which)) {
    throw new Error('BENCH_DB must be pglite, postgres or both');
  }
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new Error('BENCH_ITERATIONS must be a positive integer');
  }
  return {
    spaces,
    databases: (which === 'both' ? ['pglite', 'postgres'] : [which]) as DbKind[],
    iterations,
    /** Keep the databases (for EXPLAIN ANALYZE afterwards) instead of removing them. */
    keep: process.env.BENCH_KEEP === '1',
    /** A server to create the bench's own database on (the `postgres` database always exists). */
    postgresUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

// ── measuring ───────────────────────────────────────────────────────────────

/** One operation's samples: wall time per call, and CPU over the stretches it ran in. */
interface Recorder {
  label: string;
  times: number[];
  /** CPU ms of this process (PGlite's worker thread included) and of PostgreSQL's processes. */
  cpu: { app: number; postgres: number };
}

const recorder = (label: string): Recorder => ({ label, times: [], cpu: { app: 0, postgres: 0 } });

/** Times one call into `rec`. */
async function timed<T>(rec: Recorder, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const result = await run();
  rec.times.push(performance.now() - t0);
  return result;
}

const appCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * Charges the CPU used while `run` ran to `rec`: PostgreSQL's read from /proc
 * (so per stretch of calls, never per call), this process's read just inside
 * those reads so the /proc walk itself is not counted.
 */
async function charged<T>(rec: Recorder, run: () => Promise<T>): Promise<T> {
  const before = cpuNow();
  const appBefore = appCpuMs();
  const result = await run();
  const appAfter = appCpuMs();
  rec.cpu.app += appAfter - appBefore;
  rec.cpu.postgres += cpuBetween(before, cpuNow()).postgres;
  return result;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;

interface Stats {
  n: number;
  p50: number;
  p95: number;
  max: number;
  sum: number;
}

function stats(times: number[]): Stats {
  if (times.length === 0) throw new Error('no samples');
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: times.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    max: sorted[sorted.length - 1]!,
    sum: times.reduce((total, t) => total + t, 0),
  };
}

const loadLine = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ── the account's spaces ────────────────────────────────────────────────────

const slugOf = (i: number) => `user-${String(i).padStart(5, '0')}`;
const nameOf = (i: number) => `User ${String(i).padStart(5, '0')}`;

const CITIES = ['Lisbon', 'Osaka', 'Nairobi', 'Montreal', 'Tromsø', 'Valparaíso', 'Hanoi'];
const TOOLS = ['Rust', 'Postgres', 'Figma', 'Kubernetes', 'Blender', 'Excel', 'Elixir'];

/** The 3 entities of space i, 2 observations each; the first is what creates a space on first write. */
function entitiesOf(i: number) {
  const city = CITIES[i % CITIES.length]!;
  const tool = TOOLS[i % TOOLS.length]!;
  return [
    {
      name: 'Profile',
      type: 'person',
      observations: [`${nameOf(i)} lives in ${city}`, `${nameOf(i)} prefers dark themes`],
    },
    {
      name: `Project ${tool}`,
      type: 'project',
      observations: [`A side project written with ${tool}`, `Started in spring, paused twice`],
    },
    {
      name: 'Weekly sync',
      type: 'event',
      observations: [`Every Monday at nine with the ${city} team`, `Notes go to the shared drive`],
    },
  ];
}

const RECALL_QUESTION = 'which city does the user live in';

interface SpaceRecord {
  slug: string;
  entityIds: string[];
}

interface Check {
  verdict: 'PASS' | 'MISS' | 'info';
  text: string;
}

interface DbReport {
  kind: DbKind;
  rows: Recorder[];
  checks: Check[];
  notes: string[];
  loadBefore: string;
  loadAfter: string;
}

async function benchDatabase(kind: DbKind): Promise<DbReport> {
  const log = (line: string) => console.log(`[${kind}] ${line}`);
  const database = await openBenchDatabase(kind, {
    serverUrl: options.postgresUrl,
    keep: options.keep,
  });
  log(`database ${database.where}`);
  let app: FastifyInstance | undefined;
  let runtime: Runtime | undefined;
  try {
    // The per-key rate limit (20,000 a minute) would throttle the fill phase,
    // which this bench does not measure: lifted far above anything it sends.
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      API_RATE_LIMIT_PER_MINUTE: '100000000',
    });
    runtime = await createRuntime(config, { database: database.handle });
    app = await buildApp({ config, runtime });
    await app.ready();
    const server = app;

    const session = await signUpOnTeamPlan(server, database.handle);
    log(`account ${session.accountId} on the team plan (unlimited spaces)`);
    // An app serving its end users calls with an account API key, not a person's session.
    const key = await server.inject({
      method: 'POST',
      url: '/api/keys',
      headers: { authorization: `Bearer ${session.token}` },
      payload: { name: 'bench spaces' },
    });
    if (key.statusCode !== 201) throw new Error(`creating the API key failed: ${key.body}`);
    const token = key.json<{ apiKey: string }>().apiKey;

    const call = async <T>(
      method: 'GET' | 'POST',
      url: string,
      expected: number,
      { space, payload }: { space?: string; payload?: unknown } = {},
    ): Promise<T> => {
      const response = await server.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          ...(space === undefined ? {} : { [SPACE_HEADER]: space }),
        },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      if (response.statusCode !== expected) {
        throw new Error(
          `${method} ${url}${space ? ` in ${space}` : ''} → ${response.statusCode}: ${response.body.slice(0, 300)}`,
        );
      }
      return response.json<T>();
    };

    const loadBefore = loadLine();
    log(`load average before: ${loadBefore}`);
    const rows: Recorder[] = [];
    const checks: Check[] = [];
    const notes: string[] = [];
    const spaces: SpaceRecord[] = [];

    // 1. Create: alternating runs by POST /api/spaces and by a first write with ?create=1.
    const createNamed = recorder('create space (POST /api/spaces)');
    const createOnWrite = recorder('create on first write (POST /api/entities?create=1)');
    log(`creating ${options.spaces.toLocaleString('en-US')} spaces`);
    const createStarted = performance.now();
    for (let start = 0; start < options.spaces; start += CREATE_RUN) {
      const end = Math.min(options.spaces, start + CREATE_RUN);
      const byName = (start / CREATE_RUN) % 2 === 0;
      await charged(byName ? createNamed : createOnWrite, async () => {
        for (let i = start; i < end; i++) {
          if (byName) {
            const created = await timed(createNamed, () =>
              call<{ slug: string }>('POST', '/api/spaces', 201, {
                payload: { name: nameOf(i) },
              }),
            );
            if (created.slug !== slugOf(i)) {
              throw new Error(`"${nameOf(i)}" got slug ${created.slug}, not ${slugOf(i)}`);
            }
            spaces.push({ slug: created.slug, entityIds: [] });
          } else {
            const first = await timed(createOnWrite, () =>
              call<{ id: string }>('POST', '/api/entities?create=1', 201, {
                space: slugOf(i),
                payload: entitiesOf(i)[0],
              }),
            );
            spaces.push({ slug: slugOf(i), entityIds: [first.id] });
          }
        }
      });
      if (end % 1000 === 0) log(`  ${end.toLocaleString('en-US')} spaces`);
    }
    const createWall = performance.now() - createStarted;
    rows.push(createNamed, createOnWrite);
    notes.push(
      `Created ${options.spaces.toLocaleString('en-US')} spaces in ${(createWall / 1000).toFixed(1)} s ` +
        `(${Math.round(options.spaces / (createWall / 1000)).toLocaleString('en-US')} spaces/s); ` +
        `by POST /api/spaces ${rate(createNamed)} spaces/s, on first write (space + 1 entity) ${rate(createOnWrite)} spaces/s.`,
    );
    // Creating must not slow down as the account fills: the first tenth against the last.
    for (const rec of [createNamed, createOnWrite]) {
      const tenth = Math.max(1, Math.floor(rec.times.length / 10));
      notes.push(
        `${rec.label}: p50 of the first ${tenth} ${stats(rec.times.slice(0, tenth)).p50.toFixed(2)} ms, ` +
          `of the last ${tenth} ${stats(rec.times.slice(-tenth)).p50.toFixed(2)} ms.`,
      );
    }

    // 2. Fill: 3 entities of 2 observations and 1 relation per space.
    const fillEntity = recorder('fill: create entity in a space (POST /api/entities)');
    const fillRelation = recorder('fill: create relation in a space (POST /api/relations)');
    log('filling every space: 3 entities (2 observations each), 1 relation');
    const fillStarted = performance.now();
    for (let start = 0; start < spaces.length; start += CREATE_RUN) {
      const run = spaces.slice(start, start + CREATE_RUN);
      await charged(fillEntity, async () => {
        for (const [offset, space] of run.entries()) {
          const i = start + offset;
          for (const input of entitiesOf(i).slice(space.entityIds.length)) {
            const created = await timed(fillEntity, () =>
              call<{ id: string }>('POST', '/api/entities', 201, {
                space: space.slug,
                payload: input,
              }),
            );
            space.entityIds.push(created.id);
          }
        }
      });
      await charged(fillRelation, async () => {
        for (const space of run) {
          await timed(fillRelation, () =>
            call('POST', '/api/relations', 201, {
              space: space.slug,
              payload: {
                fromEntityId: space.entityIds[0],
                toEntityId: space.entityIds[1],
                type: 'works_on',
              },
            }),
          );
        }
      });
      if ((start + run.length) % 1000 === 0) {
        log(`  ${(start + run.length).toLocaleString('en-US')} spaces filled`);
      }
    }
    const fillWall = performance.now() - fillStarted;
    rows.push(fillEntity, fillRelation);
    const writes = fillEntity.times.length + fillRelation.times.length;
    notes.push(
      `Filled in ${(fillWall / 1000).toFixed(1)} s: ${writes.toLocaleString('en-US')} writes, ` +
        `${Math.round(writes / (fillWall / 1000)).toLocaleString('en-US')} writes/s ` +
        `(entities ${rate(fillEntity)}/s, relations ${rate(fillRelation)}/s).`,
    );

    // The account's totals (every space) must agree with what was written.
    const totals = await call<{
      totalEntities: number;
      totalRelations: number;
      totalObservations: number;
    }>('GET', '/api/analytics', 200);
    const n = options.spaces;
    if (
      totals.totalEntities !== 3 * n ||
      totals.totalRelations !== n ||
      totals.totalObservations !== 6 * n
    ) {
      throw new Error(`account totals disagree with what was written: ${JSON.stringify(totals)}`);
    }

    // 3. List with paging: every page of 100, each space seen exactly once.
    const listPage = recorder('list spaces, one page of 100 (GET /api/spaces)');
    const seen = new Map<string, number>();
    let cursor: string | null = null;
    // The last page with a full 100 (the very last may hold one space, and so cost less).
    let lastFullPageUrl = '';
    let lastFullPageAt = 0;
    await charged(listPage, async () => {
      do {
        const url = `/api/spaces?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await timed(listPage, () =>
          call<{ spaces: { slug: string }[]; nextCursor: string | null }>('GET', url, 200),
        );
        for (const { slug } of page.spaces) seen.set(slug, (seen.get(slug) ?? 0) + 1);
        if (page.spaces.length === 100) {
          lastFullPageUrl = url;
          lastFullPageAt = listPage.times.length;
        }
        cursor = page.nextCursor;
      } while (cursor);
    });
    const twice = [...seen].filter(([, count]) => count > 1).map(([slug]) => slug);
    const missing = spaces.filter((space) => !seen.has(space.slug)).map((space) => space.slug);
    // The account's `default` space is listed beside the bench's.
    if (twice.length > 0 || missing.length > 0 || seen.size !== n + 1) {
      throw new Error(
        `paging saw ${seen.size} spaces for ${n + 1}: twice ${twice.slice(0, 5).join(', ')}, missing ${missing.slice(0, 5).join(', ')}`,
      );
    }
    rows.push(listPage);
    const walk = stats(listPage.times);
    notes.push(
      `Paged through ${seen.size.toLocaleString('en-US')} spaces in ${listPage.times.length} pages ` +
        `(${walk.sum.toFixed(0)} ms), each seen exactly once; first page ${listPage.times[0]!.toFixed(2)} ms, ` +
        `last full page (page ${lastFullPageAt}) ${listPage.times[lastFullPageAt - 1]!.toFixed(2)} ms, ` +
        `last page ${listPage.times[listPage.times.length - 1]!.toFixed(2)} ms in that walk.`,
    );

    // The first and the last full page again, in alternate runs of 10, so one slow call decides nothing.
    const firstPage = recorder('list spaces: the first page');
    const lastPage = recorder(`list spaces: the last full page (page ${lastFullPageAt}, cursor)`);
    for (let i = 0; i < 5; i++) {
      await call('GET', '/api/spaces?limit=100', 200);
      await call('GET', lastFullPageUrl, 200);
    }
    for (let done = 0; done < options.iterations; done += 10) {
      const calls = Math.min(10, options.iterations - done);
      for (const [rec, url] of [
        [firstPage, '/api/spaces?limit=100'],
        [lastPage, lastFullPageUrl],
      ] as const) {
        await charged(rec, async () => {
          for (let i = 0; i < calls; i++) await timed(rec, () => call('GET', url, 200));
        });
      }
    }
    rows.push(firstPage, lastPage);

    // Prefix search: the spaces of the last tenth, e.g. user-09 at 10,000.
    const prefix = slugOf(Math.floor(0.9 * n)).slice(
      0,
      -Math.max(1, Math.floor(Math.log10(n / 10))),
    );
    const prefixSearch = recorder(`search spaces by prefix (?query=${prefix})`);
    let prefixMatches = 0;
    await measureReads(prefixSearch, async () => {
      const page = await call<{ spaces: { slug: string }[] }>(
        'GET',
        `/api/spaces?query=${prefix}`,
        200,
      );
      if (page.spaces.some((space) => !space.slug.startsWith(prefix))) {
        throw new Error(`?query=${prefix} answered a space without the prefix`);
      }
      prefixMatches = page.spaces.length;
    });
    rows.push(prefixSearch);
    notes.push(`Prefix search ${prefix}: ${prefixMatches} spaces on its first page.`);

    // 4. Reads in random spaces.
    const pick = () => spaces[Math.floor(Math.random() * spaces.length)]!;
    const inSpace: Recorder[] = [];
    const read = async (label: string, check: (space: SpaceRecord) => Promise<void>) => {
      const rec = recorder(label);
      await measureReads(rec, () => check(pick()));
      inSpace.push(rec);
      rows.push(rec);
    };
    await read('list entities in a space (GET /api/entities)', async (space) => {
      const list = await call<{ total: number }>('GET', '/api/entities?limit=20', 200, {
        space: space.slug,
      });
      if (list.total !== 3) throw new Error(`${space.slug} lists ${list.total} entities, not 3`);
    });
    await read('search in a space (GET /api/entities?query=project)', async (space) => {
      const found = await call<{ total: number }>('GET', '/api/entities?query=project', 200, {
        space: space.slug,
      });
      if (found.total !== 1) throw new Error(`${space.slug}: search found ${found.total}, not 1`);
    });
    await read('one space with counts (GET /api/spaces/:slug)', async (space) => {
      const one = await call<{ counts: { entities: number } }>(
        'GET',
        `/api/spaces/${space.slug}`,
        200,
      );
      if (one.counts.entities !== 3) throw new Error(`${space.slug} counts ${one.counts.entities}`);
    });
    await read('recall in a space (GET /api/recall)', async (space) => {
      const answer = await call<{ results: { entityId: string }[] }>(
        'GET',
        `/api/recall?q=${encodeURIComponent(RECALL_QUESTION)}&limit=10`,
        200,
        { space: space.slug },
      );
      if (answer.results.some((result) => !space.entityIds.includes(result.entityId))) {
        throw new Error(`recall in ${space.slug} answered another space's entity`);
      }
    });
    // MCP's get_context tool calls the same recall service with the same space.
    await read("context in a space (GET /api/context, MCP's get_context)", async (space) => {
      await call('GET', `/api/context?q=${encodeURIComponent(RECALL_QUESTION)}`, 200, {
        space: space.slug,
      });
    });
    await read('dashboard of one space (GET /api/analytics + header)', async (space) => {
      const one = await call<{ totalEntities: number }>('GET', '/api/analytics', 200, {
        space: space.slug,
      });
      if (one.totalEntities !== 3) throw new Error(`${space.slug} analytics: ${one.totalEntities}`);
    });
    const allSpaces = recorder('dashboard of every space (GET /api/analytics)');
    await measureReads(allSpaces, async () => {
      await call('GET', '/api/analytics', 200);
    });
    rows.push(allSpaces);

    // 5. Isolation: what one space lists never shows in another's.
    const pairs = Math.min(10, Math.floor(spaces.length / 2));
    for (let p = 0; p < pairs; p++) {
      const a = spaces[Math.floor(Math.random() * spaces.length)]!;
      let b = pick();
      while (b === a) b = pick();
      const idsIn = async (space: SpaceRecord) =>
        (
          await call<{ entities: { id: string }[] }>('GET', '/api/entities?limit=100', 200, {
            space: space.slug,
          })
        ).entities.map((entity) => entity.id);
      const [inA, inB] = [await idsIn(a), await idsIn(b)];
      const sameSet = (ids: string[], expected: string[]) =>
        ids.length === expected.length && ids.every((id) => expected.includes(id));
      if (
        !sameSet(inA, a.entityIds) ||
        !sameSet(inB, b.entityIds) ||
        inA.some((id) => inB.includes(id))
      ) {
        throw new Error(`isolation broken between ${a.slug} and ${b.slug}`);
      }
      // Another space's entity, asked for by id, is not there.
      await call('GET', `/api/entities/${a.entityIds[0]}`, 404, { space: b.slug });
    }
    notes.push(
      `Isolation: ${pairs} random pairs of spaces, each lists exactly its own entities, none of the other's (by id: 404).`,
    );

    const loadAfter = loadLine();
    log(`load average after: ${loadAfter}`);

    // Verdicts.
    const verdict = (met: boolean): Check['verdict'] => (met ? 'PASS' : 'MISS');
    for (const rec of [createNamed, createOnWrite]) {
      const p50 = stats(rec.times).p50;
      checks.push({
        verdict: verdict(p50 <= TARGET.create),
        text: `${rec.label}: p50 ${p50.toFixed(2)} ms (target ≤ ${TARGET.create} ms)`,
      });
    }
    checks.push({
      verdict: verdict(walk.p50 <= TARGET.listPage),
      text: `list page p50 ${walk.p50.toFixed(2)} ms over the full walk (target ≤ ${TARGET.listPage} ms)`,
    });
    const [first, last] = [stats(firstPage.times).p50, stats(lastPage.times).p50];
    checks.push({
      verdict: verdict(last <= TARGET.lastPageOverFirst * first),
      text: `last full page p50 ${last.toFixed(2)} ms vs first page ${first.toFixed(2)} ms: ×${(last / first).toFixed(2)} (target ≤ ×${TARGET.lastPageOverFirst})`,
    });
    for (const rec of inSpace) {
      const p50 = stats(rec.times).p50;
      checks.push({
        verdict: verdict(p50 <= TARGET.readInSpace),
        text: `${rec.label}: p50 ${p50.toFixed(2)} ms (target ≤ ${TARGET.readInSpace} ms)`,
      });
    }
    const all = stats(allSpaces.times);
    checks.push({
      verdict: 'info',
      text: `${allSpaces.label} over ${(n + 1).toLocaleString('en-US')} spaces: p50 ${all.p50.toFixed(2)} ms, p95 ${all.p95.toFixed(2)} ms`,
    });
    return { kind, rows, checks, notes, loadBefore, loadAfter };
  } finally {
    await app?.close();
    await runtime?.close();
    await database.dispose();
  }
}

/** Warm-up, then BENCH_ITERATIONS timed calls, the CPU over all of them charged to `rec`. */
async function measureReads(rec: Recorder, run: () => Promise<void>) {
  for (let i = 0; i < Math.min(10, options.iterations); i++) await run();
  await charged(rec, async () => {
    for (let i = 0; i < options.iterations; i++) await timed(rec, run);
  });
}

/** Calls per second of the time spent in them. */
const rate = (rec: Recorder) =>
  Math.round(rec.times.length / (stats(rec.times).sum / 1000)).toLocaleString('en-US');

// ── report ──────────────────────────────────────────────────────────────────

function printReport(reports: DbReport[]) {
  console.log('');
  console.log(
    `Engram spaces benchmark — ${options.spaces.toLocaleString('en-US')} spaces in one account ` +
      `(3 entities, 6 observations, 1 relation each), ${options.iterations} reads per operation; ` +
      `${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.versions.node}`,
  );
  for (const report of reports) {
    const postgres = report.kind === 'postgres';
    console.log('');
    console.log(`### ${postgres ? 'PostgreSQL' : 'PGlite'}`);
    console.log('');
    const header = ['operation', 'calls', 'p50 ms', 'p95 ms', 'max ms', 'CPU ms/call (app)'];
    if (postgres) header.push('CPU ms/call (PostgreSQL)');
    const table = [header];
    for (const rec of report.rows) {
      const s = stats(rec.times);
      const row = [
        rec.label,
        String(s.n),
        s.p50.toFixed(2),
        s.p95.toFixed(2),
        s.max.toFixed(2),
        (rec.cpu.app / s.n).toFixed(2),
      ];
      if (postgres) row.push((rec.cpu.postgres / s.n).toFixed(2));
      table.push(row);
    }
    const widths = header.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
    const line = (row: string[]) =>
      `| ${row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
    console.log(line(header));
    console.log(
      `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    );
    for (const row of table.slice(1)) console.log(line(row));
    console.log('');
    console.log(
      `Load average (1, 5, 15 min): before ${report.loadBefore}, after ${report.loadAfter}`,
    );
    for (const note of report.notes) console.log(note);
    for (const check of report.checks) console.log(`${check.verdict} ${check.text}`);
  }
  const missed = reports.flatMap((r) => r.checks.filter((c) => c.verdict === 'MISS'));
  console.log('');
  console.log(missed.length ? `${missed.length} target(s) missed.` : 'All targets met.');
}

async function main() {
  console.log(
    `bench/spaces: ${options.spaces.toLocaleString('en-US')} spaces on ${options.databases.join(' and ')}`,
  );
  const [load] = loadavg();
  if (load! > cpus().length * 0.75) {
    console.log(
      `warning: load average ${load!.toFixed(2)} on ${cpus().length} cores — other processes are using the CPU, expect inflated numbers`,
    );
  }
  const reports: DbReport[] = [];
  for (const kind of options.databases) reports.push(await benchDatabase(kind));
  printReport(reports);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
