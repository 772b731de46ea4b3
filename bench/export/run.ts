/**
 * One export against everything else (issue 31, finding 2): a real `engram
 * serve` in its own process, one free-plan account filled with the largest
 * graph the free plan allows — 1,000 entities × 1,000 observations, each as
 * short as the 100 MB storage limit leaves room for ("0" … "999") — then
 * `GET /api/export` over HTTP while `/healthz` is polled every 20 ms.
 *
 *   npm run bench:export                      # PGlite, then PostgreSQL
 *   BENCH_DB=pglite npm run bench:export      # pglite | postgres | both
 *
 * Reports the export's time and size, the server's peak resident memory
 * during it (VmHWM, reset before the export) and the worst /healthz delay,
 * with the machine's load beside them. Options: BENCH_ENTITIES,
 * BENCH_OBSERVATIONS (per entity; defaults 1,000 and 1,000),
 * BENCH_DATABASE_URL, BENCH_SERVER_REF (a git ref whose server to run
 * instead of the working tree's, for a before/after). Results:
 * bench/README.md ("bench/export").
 */
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createDatabase,
  exportServer,
  startServer,
  type ServerProcess,
} from '../realtime/server.js';

type DbKind = 'pglite' | 'postgres';

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 1_000);
const OBSERVATIONS = Number(process.env.BENCH_OBSERVATIONS ?? 1_000);
const POLL_MS = 20;
/** Entities created at once while filling the graph. */
const WRITERS = 4;
const which = process.env.BENCH_DB ?? 'both';
if (!['pglite', 'postgres', 'both'].includes(which)) {
  throw new Error('BENCH_DB must be pglite, postgres or both');
}
const kinds: DbKind[] = which === 'both' ? ['pglite', 'postgres'] : [which as DbKind];
const postgresUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const serverRef = process.env.BENCH_SERVER_REF ?? '';

const load = () => loadavg()[0]!.toFixed(2);

async function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

/** Starts the peak (VmHWM) over from the current resident memory (Linux: clear_refs 5). */
async function resetPeak(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** A new free-plan account through the real sign-up route: its session token. */
async function signUp(url: string): Promise<string> {
  const response = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-export-${Date.now()}@example.com`,
      password: 'Password123',
      firstName: 'Bench',
      lastName: 'Export',
    }),
  });
  return (await json<{ token: string }>(response)).token;
}

/** Creates the graph through POST /api/entities, an entity with all its observations per call. */
async function fill(url: string, token: string): Promise<{ entities: number; seconds: number }> {
  const started = performance.now();
  let next = 0;
  let created = 0;
  const writer = async () => {
    for (let index = next++; index < ENTITIES; index = next++) {
      const response = await fetch(`${url}/api/entities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `entity ${index}`,
          type: 'thing',
          observations: Array.from({ length: OBSERVATIONS }, (_, n) => String(n)),
        }),
      });
      if (response.status !== 201) {
        throw new Error(`entity ${index}: ${response.status} ${await response.text()}`);
      }
      await response.arrayBuffer();
      created += 1;
      if (created % 100 === 0) process.stdout.write(`  ${created} entities\r`);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return { entities: created, seconds: (performance.now() - started) / 1000 };
}

/**
 * Polls /healthz every POLL_MS (one at a time) from a worker thread, so that
 * reading the export in this process does not delay the polls: `stop` ends
 * it and gives each answer's delay, ms.
 */
function pollHealth(url: string): { stop: () => Promise<number[]> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const delays = [];
     let failed = 0;
     let stopped = false;
     parentPort.once('message', () => (stopped = true));
     (async () => {
       while (!stopped) {
         const sent = performance.now();
         try {
           const response = await fetch(workerData.url + '/healthz');
           await response.arrayBuffer();
           if (!response.ok) failed += 1;
         } catch {
           failed += 1;
         }
         const delay = performance.now() - sent;
         delays.push(delay);
         await new Promise((resolve) => setTimeout(resolve, Math.max(0, workerData.every - delay)));
       }
       if (failed > 0) console.error(failed + ' /healthz polls failed');
       parentPort.postMessage(delays);
     })();`,
    { eval: true, workerData: { url, every: POLL_MS } },
  );
  const delays = new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const result = await delays;
      await worker.terminate();
      return result;
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

interface Report {
  kind: DbKind;
  fill: { entities: number; seconds: number };
  exportSeconds: number;
  bytes: number;
  observations: number;
  secondExport: number;
  failure: string | undefined;
  rssBeforeMb: number;
  peakRssMb: number | undefined;
  idle: number[];
  during: number[];
  loadBefore: string;
  loadAfter: string;
}

async function runOne(kind: DbKind, main: string | undefined): Promise<Report> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-export-'));
  const database = kind === 'postgres' ? await createDatabase(postgresUrl) : undefined;
  let server: ServerProcess | undefined;
  try {
    server = await startServer({ dataDir, databaseUrl: database?.url, main });
    const { url, pid } = server;
    console.log(`${kind}: server pid ${pid} at ${url}; filling ${ENTITIES} × ${OBSERVATIONS}…`);
    const token = await signUp(url);
    const filled = await fill(url, token);
    console.log(`${kind}: filled in ${filled.seconds.toFixed(1)} s (load ${load()})`);
    await sleep(2_000);

    // /healthz alone, for comparison.
    const idlePolls = pollHealth(url);
    await sleep(2_000);
    const idle = await idlePolls.stop();
    const rssBefore = await statusKb(pid, 'VmRSS');
    const peakKnown = await resetPeak(pid);
    const loadBefore = load();

    const polls = pollHealth(url);
    await sleep(200);
    const started = performance.now();
    const chunks: Uint8Array[] = [];
    let secondExport = 0;
    let failure: string | undefined;
    try {
      const response = await fetch(`${url}/api/export`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      // A second export of the account while the first runs.
      const second = await fetch(`${url}/api/export`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await second.arrayBuffer();
      secondExport = second.status;
      // Kept as it comes, read once the export is over.
      for await (const chunk of response.body!) chunks.push(chunk);
    } catch (error) {
      // The server before issue 31 could fail here (a statement past the timeout).
      failure = String((error as Error).cause ?? error);
    }
    const exportSeconds = (performance.now() - started) / 1000;
    const during = await polls.stop();
    const text = Buffer.concat(chunks).toString('utf8');
    const peak = peakKnown ? await statusKb(pid, 'VmHWM') : undefined;
    const loadAfter = load();

    let observations = 0;
    if (!failure) {
      const document = JSON.parse(text) as { entities: { observations: unknown[] }[] };
      for (const entity of document.entities) observations += entity.observations.length;
      if (document.entities.length !== filled.entities) {
        failure = `the export has ${document.entities.length} entities`;
      }
    }
    return {
      kind,
      fill: filled,
      exportSeconds,
      bytes: text.length,
      observations,
      secondExport,
      failure,
      rssBeforeMb: rssBefore / 1024,
      peakRssMb: peak === undefined ? undefined : peak / 1024,
      idle,
      during,
      loadBefore,
      loadAfter,
    };
  } finally {
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const exportedServer = serverRef ? exportServer(serverRef) : undefined;
  const reports: Report[] = [];
  try {
    for (const kind of kinds) reports.push(await runOne(kind, exportedServer?.main));
  } finally {
    await exportedServer?.cleanup();
  }
  console.log(
    `\nGET /api/export of ${ENTITIES.toLocaleString('en-US')} entities × ${OBSERVATIONS.toLocaleString('en-US')} observations (free plan), server ${serverRef || 'working tree'}, /healthz polled every ${POLL_MS} ms`,
  );
  for (const report of reports) {
    const worst = Math.max(...report.during);
    console.log(
      [
        `${report.kind.padEnd(8)} export ${report.failure ? `FAILED after ${report.exportSeconds.toFixed(2)} s (${report.failure})` : `${report.exportSeconds.toFixed(2)} s`}`,
        `${(report.bytes / 1024 / 1024).toFixed(1)} MB`,
        `${report.observations.toLocaleString('en-US')} observations`,
        `second export ${report.secondExport}`,
        `RSS ${report.rssBeforeMb.toFixed(0)} MB before, peak ${report.peakRssMb?.toFixed(0) ?? '?'} MB during`,
        `/healthz worst ${worst.toFixed(1)} ms, p99 ${percentile(report.during, 99).toFixed(1)}, p50 ${percentile(report.during, 50).toFixed(1)} (${report.during.length} polls; idle: worst ${Math.max(...report.idle).toFixed(1)}, p50 ${percentile(report.idle, 50).toFixed(1)})`,
        `load ${report.loadBefore} → ${report.loadAfter}`,
        `(filled in ${report.fill.seconds.toFixed(0)} s)`,
      ].join(' · '),
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
