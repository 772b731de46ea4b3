/**
 * A large graph on the embedded database (issue 37): does PGlite load
 * 1M entities (2M observations, 2M relations), restart on them quickly, and
 * answer single MCP calls about as fast as at 100k?
 *
 *   BENCH_ENTITIES=1000000 npm run bench:large
 *
 * Steps, as a person meets the product:
 * 1. a fresh data folder with one account on the top plan;
 * 2. the graph (BENCH_ENTITIES entities of 2 observations, 2 relations per
 *    entity) written as the reference server's JSONL and loaded with
 *    `engram import` (a real child process) — timed;
 * 3. `engram serve` (compiled, as `npm start` runs it) started on the folder
 *    BENCH_RESTARTS times (default 3), timed from spawn to /healthz answering;
 * 4. single MCP calls (a 2026-era client, one call at a time) on the loaded
 *    graph: BENCH_ITERATIONS (default 200) of search_nodes, open_nodes,
 *    create_entities and add_observations, p50 and p95; the server's
 *    resident memory (VmRSS, and VmHWM its peak) before and after them;
 * 5. the server stopped, the folder opened as the server opens it: the
 *    server's idle upkeep pass after those calls, then a whole-database
 *    `vacuum analyze`, timed (PGlite has one connection: every call waits
 *    while a pass runs).
 *
 * BENCH_DIR keeps the folder (and reuses one already loaded, skipping steps
 * 1–2), so steps 3–5 can be repeated on a quiet machine. Figures:
 * bench/README.md ("A large graph on PGlite").
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callTool, connectEra, type EraClient } from '../../packages/server/src/test/mcp-client.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { openDatabase } from '../../packages/server/src/db/connection.js';
import { DatabaseUpkeep } from '../../packages/server/src/db/upkeep.js';
import { databaseOptionsOf } from '../../packages/server/src/runtime.js';
import { buildWorkload, pick, rng } from '../mcp/workload.js';
import { prepareAccount, startServer } from '../realtime/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const entities = Number(process.env.BENCH_ENTITIES ?? 1_000_000);
const restarts = Number(process.env.BENCH_RESTARTS ?? 3);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
const LOADED = 'bench-large.json';
/** The compiled server, as `npm start` runs it (bench:large builds it first). */
const MAIN = join(ROOT, 'packages/server/dist/main.js');

const log = (line: string) =>
  console.log(
    `${new Date().toISOString().slice(11, 19)} ${line} (load ${loadavg()[0]!.toFixed(1)})`,
  );

const percentile = (times: number[], p: number) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** The reference server's JSONL of the workload, written as a stream. */
async function writeJsonl(file: string, workload: ReturnType<typeof buildWorkload>) {
  const out = createWriteStream(file);
  const write = async (line: object) => {
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  };
  for (const entity of workload.entities) await write({ type: 'entity', ...entity });
  for (const relation of workload.relations) await write({ type: 'relation', ...relation });
  out.end();
  await once(out, 'finish');
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`)))),
  );
}

async function load(dataDir: string, workload: ReturnType<typeof buildWorkload>) {
  const account = await prepareAccount(dataDir);
  const file = join(dataDir, '..', `bench-large-${entities}.jsonl`);
  await writeJsonl(file, workload);
  log(`wrote ${file}`);
  const started = performance.now();
  await run([MAIN, 'import', file], {
    DATA_DIR: dataDir,
    ENGRAM_API_KEY: account.apiKey,
  });
  const seconds = (performance.now() - started) / 1000;
  await rm(file);
  await writeFile(
    join(dataDir, LOADED),
    JSON.stringify({ apiKey: account.apiKey, entities, seconds }),
  );
  log(
    `engram import: ${entities.toLocaleString('en-US')} entities, ${(entities * 2).toLocaleString('en-US')} observations, ${workload.relations.length.toLocaleString('en-US')} relations in ${seconds.toFixed(1)} s (${Math.round(entities / seconds).toLocaleString('en-US')} entities/s)`,
  );
  return account.apiKey;
}

async function main() {
  const dataDir = process.env.BENCH_DIR ?? (await mkdtemp(join(tmpdir(), 'engram-bench-large-')));
  await mkdir(dataDir, { recursive: true });
  const workload = buildWorkload(entities);
  log(`workload: ${entities.toLocaleString('en-US')} entities in ${dataDir}`);
  let apiKey: string;
  try {
    await access(join(dataDir, LOADED));
    apiKey = (JSON.parse(await readFile(join(dataDir, LOADED), 'utf8')) as { apiKey: string })
      .apiKey;
    log('reusing the loaded folder');
  } catch {
    apiKey = await load(dataDir, workload);
  }

  const starts: number[] = [];
  for (let i = 0; i < restarts; i++) {
    const started = performance.now();
    const server = await startServer({ dataDir, main: MAIN });
    starts.push(performance.now() - started);
    if (i < restarts - 1) await server.stop();
    else {
      log(`restarts to /healthz: ${starts.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`);
      try {
        log(`server memory after start: ${await memory(server.pid)}`);
        await measure(server.url, apiKey, workload);
        log(`server memory after the calls: ${await memory(server.pid)}`);
      } finally {
        await server.stop();
      }
    }
  }
  await timeUpkeep(dataDir);
  if (!process.env.BENCH_DIR) await rm(dataDir, { recursive: true, force: true });
}

/**
 * The server's idle upkeep pass (db/upkeep.ts, autovacuum's rules table by
 * table) on the folder after the calls, then a whole-database `vacuum
 * analyze` (what `engram import` ends with, and the pass before decision 033).
 */
async function timeUpkeep(dataDir: string) {
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' });
  const database = await openDatabase(databaseOptionsOf(config));
  const seconds = (started: number) => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  try {
    const upkeep = new DatabaseUpkeep(database, {
      minChanges: 1,
      changedFraction: 0,
      idleMs: 0,
      checkMs: 10,
    });
    let started = performance.now();
    upkeep.noteChanges(1);
    upkeep.start();
    while (upkeep.analyzed === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    upkeep.stop();
    log(`the server's idle upkeep pass: ${seconds(started)}`);
    started = performance.now();
    await database.withSession((session) => session.exec('vacuum analyze'));
    log(`a whole-database vacuum analyze: ${seconds(started)}`);
  } finally {
    await database.close();
  }
}

/** The server process's resident memory now and at its peak (worker threads included). */
async function memory(pid: number): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) =>
    Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024);
  return `${mb('VmRSS')} MB resident, peak ${mb('VmHWM')} MB`;
}

async function measure(url: string, apiKey: string, workload: ReturnType<typeof buildWorkload>) {
  const client = await connectEra('modern', url, apiKey);
  const random = rng(42);
  const names = workload.entities.map((entity) => entity.name);
  const calls: [string, (i: number) => Record<string, unknown>][] = [
    ['search_nodes', () => ({ query: pick(random, workload.searchTerms) })],
    ['open_nodes', () => ({ names: Array.from({ length: 5 }, () => pick(random, names)) })],
    [
      'create_entities',
      (i) => ({
        entities: [
          { name: `large-new-${Date.now()}-${i}`, entityType: 'concept', observations: ['new'] },
        ],
      }),
    ],
    [
      'add_observations',
      (i) => ({ observations: [{ entityName: pick(random, names), contents: [`added ${i}`] }] }),
    ],
  ];
  try {
    await removeCreated(client);
    for (const [tool, args] of calls) {
      const times: number[] = [];
      for (let i = 0; i < iterations + 10; i++) {
        const started = performance.now();
        const result = (await client.callTool({
          name: tool,
          arguments: args(i),
        })) as CallToolResult;
        if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
        if (i >= 10) times.push(performance.now() - started);
      }
      log(
        `${tool.padEnd(17)} p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms (${iterations} calls)`,
      );
    }
    await removeCreated(client);
  } finally {
    await client.close();
  }
}

/**
 * Deletes the entities create_entities added on an earlier pass over the
 * folder (their names start with "large-new-"), so it keeps its size and a
 * repeated pass never reaches the plan's entity limit.
 */
async function removeCreated(client: EraClient) {
  for (;;) {
    const found = await callTool<{ entities: { name: string }[] }>(client, 'search_nodes', {
      query: 'large-new',
    });
    const names = found.entities
      .map((entity) => entity.name)
      .filter((name) => name.startsWith('large-new-'));
    if (names.length === 0) return;
    await callTool(client, 'delete_entities', { entityNames: names });
  }
}

await main();
