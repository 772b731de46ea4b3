/**
 * Memory of the embedded server (issue 37): `engram serve` (compiled,
 * embedded PGlite) on a fresh folder — its peak while starting, idle right
 * after, its peak while 100k entities are loaded through MCP and idle again
 * after — then restarted on the loaded folder; beside it bare Node, Node with
 * PGlite open as the server opens it (what PGlite holds), and the reference
 * memory server.
 *
 *   npm run bench:memory
 *   BENCH_LOAD_ENTITIES=0 npm run bench:memory     (no load: a quick run)
 *
 * Options (environment): BENCH_SETTLE_S (idle seconds before an idle reading,
 * default 5), BENCH_SETTLE_LOAD_S (seconds after the load for a second
 * reading, default 20: the server's idle collection has run), BENCH_LOAD_ENTITIES (entities loaded through MCP's
 * create_entities in batches of 500, each with 2 observations, then 2
 * relations per entity through create_relations; default 100000, 0 skips the
 * load), BENCH_NODE_ARGS (more Node flags for the server process, for an A/B),
 * BENCH_SMAPS (0 hides the breakdown of each reading).
 *
 * Resident memory is read from /proc/<pid>/status: VmRSS for idle, and for a
 * peak the larger of VmHWM (the kernel's high-water mark of the whole process,
 * worker threads included: they are threads of the same process) and VmRSS
 * polled every 50 ms; a new folder is created by a child process of the
 * server (decision 026), whose memory the run adds while it polls. Each idle reading also splits VmRSS by kind of mapping
 * (/proc/<pid>/smaps, see `breakdown`). Results: bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { batches, buildWorkload } from '../mcp/workload.js';
import { startFlags } from '../start-flags.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const serverDir = join(root, 'packages/server');
const settleMs = Number(process.env.BENCH_SETTLE_S ?? 5) * 1000;
/** The second reading after the load: seconds after its end. */
const settleAfterLoadMs = Number(process.env.BENCH_SETTLE_LOAD_S ?? 20) * 1000;
const loadEntities = Number(process.env.BENCH_LOAD_ENTITIES ?? 100_000);
/**
 * The server runs as `npm start` runs it: with the Node flags of the root
 * package's start script (decision 032), then BENCH_NODE_ARGS.
 */
const nodeArgs = [
  ...startFlags(),
  ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
];
const showSmaps = process.env.BENCH_SMAPS !== '0';
/** The server's default PGLITE_SHARED_BUFFERS_MB (config.ts), or the one this run is given. */
const SHARED_BUFFERS_MB = Number(process.env.PGLITE_SHARED_BUFFERS_MB ?? 16);
/** The server's default PGLITE_COMPILER (config.ts), or the one this run is given. */
const COMPILER = process.env.PGLITE_COMPILER ?? 'baseline';

// ── reading a process's memory ──────────────────────────────────────────────

async function statusOf(pid: number): Promise<Record<string, number>> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const fields: Record<string, number> = {};
  for (const match of status.matchAll(/^(Vm\w+|Rss\w+|Threads):\s+(\d+)/gm)) {
    fields[match[1]!] = Number(match[2]);
  }
  return fields;
}

const mb = (kb: number) => kb / 1024;

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rssKb: number;
}

async function mappingsOf(pid: number): Promise<Mapping[]> {
  const text = await readFile(`/proc/${pid}/smaps`, 'utf8');
  const mappings: Mapping[] = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      mappings.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3]!,
        name: head[4]!,
        rssKb: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss && mappings.length > 0) mappings.at(-1)!.rssKb = Number(rss[1]);
  }
  return mappings;
}

const GB = 1n << 30n;
/** glibc gives each thread's arena heaps of 64 MB, aligned to 64 MB. */
const ARENA_HEAP = 64n << 20n;

/**
 * VmRSS split by what holds it, from the layout of the mappings:
 * - WebAssembly memory: an accessible part followed by gigabytes reserved and
 *   inaccessible (V8 reserves 8 GB and more per 32-bit wasm memory): PGlite's
 *   heap — PostgreSQL's shared_buffers, caches, work areas, its in-memory files.
 * - malloc, threads' arenas: heaps aligned to 64 MB whose used part and
 *   reserved rest make 64 MB (glibc's arenas for threads other than the
 *   main one): what the worker and V8's background threads allocate with
 *   malloc — ArrayBuffers, compiler zones — and keep or never give back.
 * - malloc, main thread ([heap]).
 * - executable: JIT and wasm machine code.
 * - other anonymous: mostly the V8 heaps (JS objects) of the main thread and the worker.
 * - files: the node binary and libraries.
 */
async function breakdown(pid: number): Promise<Record<string, number>> {
  const mappings = await mappingsOf(pid);
  const parts: Record<string, number> = {};
  const add = (key: string, kb: number) => (parts[key] = (parts[key] ?? 0) + kb);
  mappings.forEach((mapping, index) => {
    const next = mappings[index + 1];
    const reserved =
      next && !next.name && next.perms.startsWith('---') && next.start === mapping.end
        ? next.end - next.start
        : 0n;
    const size = mapping.end - mapping.start;
    if (mapping.name.startsWith('/')) add('files (node binary, libraries)', mapping.rssKb);
    else if (mapping.name === '[heap]') add('malloc, main thread ([heap])', mapping.rssKb);
    else if (mapping.name) add('other', mapping.rssKb);
    else if (mapping.perms.includes('x')) add('executable (JIT, wasm code)', mapping.rssKb);
    else if (reserved >= GB) add('WebAssembly memory (PGlite heap)', mapping.rssKb);
    else if (mapping.start % ARENA_HEAP === 0n && size + reserved === ARENA_HEAP)
      add("malloc, threads' arenas", mapping.rssKb);
    else add('other anonymous (V8 heaps, stacks)', mapping.rssKb);
  });
  return parts;
}

/** VmRSS of a process and of its descendants (the child that creates a new data folder), in KB. */
async function treeRssKb(pid: number): Promise<number> {
  const own = (await statusOf(pid)).VmRSS ?? 0;
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  let children = 0;
  for (const task of tasks) {
    const list = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const child of list.split(' ').filter(Boolean)) children += await treeRssKb(Number(child));
  }
  return own + children;
}

/**
 * Peak resident memory while something runs: the process's own (VmHWM, and
 * VmRSS polled every 50 ms) and, polled, that of the process with its
 * children together.
 */
function watchPeak(pid: number) {
  let polled = 0;
  let tree = 0;
  const timer = setInterval(() => {
    void statusOf(pid).then((status) => (polled = Math.max(polled, status.VmRSS ?? 0)));
    void treeRssKb(pid).then((kb) => (tree = Math.max(tree, kb)));
  }, 50);
  return {
    /** Since the process started (VmHWM) and since this watch started (polled). */
    async read() {
      const status = await statusOf(pid);
      return {
        hwmMb: mb(status.VmHWM ?? 0),
        polledMb: mb(Math.max(polled, status.VmRSS ?? 0)),
        treeMb: mb(tree),
      };
    },
    stop: () => clearInterval(timer),
  };
}

interface Reading {
  label: string;
  mb: number;
  peakMb?: number;
  note?: string;
  parts?: Record<string, number>;
}

async function idleReading(label: string, pid: number, peakMb?: number, note?: string) {
  await sleep(settleMs);
  const status = await statusOf(pid);
  const reading: Reading = { label, mb: mb(status.VmRSS ?? 0) };
  if (peakMb !== undefined) reading.peakMb = peakMb;
  if (note) reading.note = note;
  if (showSmaps) reading.parts = await breakdown(pid);
  return reading;
}

// ── processes ───────────────────────────────────────────────────────────────

async function stop(child: ChildProcess) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const waitForOutput = (child: ChildProcess, marker: string) =>
  new Promise<void>((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(marker)) resolve();
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before "${marker}": ${seen.slice(-2000)}`)),
    );
  });

async function waitForHealth(child: ChildProcess, port: number): Promise<void> {
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  for (let attempt = 0; attempt < 2400 && child.exitCode === null; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`engram serve did not become healthy: ${output}`);
}

/** Starts a process, watches its peak until it is ready, then reads it idle. */
async function measureStart(
  label: string,
  start: () => ChildProcess,
  ready: (child: ChildProcess) => Promise<void>,
): Promise<{ child: ChildProcess; reading: Reading; readyMs: number }> {
  const started = performance.now();
  const child = start();
  const peak = watchPeak(child.pid!);
  try {
    await ready(child);
    const readyMs = performance.now() - started;
    const { hwmMb, polledMb, treeMb } = await peak.read();
    const reading = await idleReading(label, child.pid!, Math.max(hwmMb, polledMb));
    reading.note = `ready in ${(readyMs / 1000).toFixed(1)} s`;
    if (treeMb > reading.peakMb! + 1) {
      reading.note += `; peak with its child process ${treeMb.toFixed(0)} MB`;
    }
    return { child, reading, readyMs };
  } catch (error) {
    await stop(child);
    throw error;
  } finally {
    peak.stop();
  }
}

// ── the load, through the product's interfaces ─────────────────────────────

/**
 * Signs up through HTTP, moves the account to the Team plan (self-service: a
 * loopback server without PUBLIC_URL, as `npm start` runs) and loads
 * `entities` entities and twice as many relations through MCP, in the
 * batches bench/mcp uses. Resolves with the seconds it took.
 */
async function loadThroughMcp(baseUrl: string, entities: number): Promise<number> {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const signedUp = (await post('/auth/register', {
    email: `bench-memory-${randomUUID().slice(0, 8)}@example.com`,
    password: 'Password123',
    firstName: 'Bench',
    lastName: 'Memory',
  })) as { token: string; user: { apiKey: string } };
  const plans = (await (
    await fetch(`${baseUrl}/api/billing/plans`, {
      headers: { authorization: `Bearer ${signedUp.token}` },
    })
  ).json()) as { plans: { id: string; priceId: string | null }[] };
  const team = plans.plans.find((plan) => plan.id === 'team');
  if (!team) throw new Error('no team plan');
  await post(
    '/api/billing/change-plan',
    { planId: team.id, priceId: team.priceId },
    signedUp.token,
  );

  const client = new Client({ name: 'engram-bench-memory', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${signedUp.user.apiKey}` } },
    }),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args }, undefined, {
      timeout: 600_000,
    })) as CallToolResult;
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  };
  const started = performance.now();
  try {
    const workload = buildWorkload(entities);
    for (const batch of batches(workload.entities))
      await call('create_entities', { entities: batch });
    for (const batch of batches(workload.relations))
      await call('create_relations', { relations: batch });
  } finally {
    await client.close();
  }
  return (performance.now() - started) / 1000;
}

// ── the run ─────────────────────────────────────────────────────────────────

async function main() {
  const folders: string[] = [];
  const folder = async () => {
    const path = await mkdtemp(join(tmpdir(), 'engram-bench-memory-'));
    folders.push(path);
    return path;
  };
  const readings: Reading[] = [];
  const loads: number[] = [loadavg()[0]!];
  const idleOf = async (label: string, start: () => ChildProcess, marker: string) => {
    const { child, reading } = await measureStart(label, start, (c) => waitForOutput(c, marker));
    await stop(child);
    readings.push(reading);
  };
  try {
    await idleOf(
      'Node alone (node -e, idle)',
      () =>
        spawn(process.execPath, ['-e', 'console.log("ready"); setInterval(() => {}, 1e6)'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      'ready',
    );

    // Node with PGlite open as the server opens it (pglite-worker.ts), on a fresh folder, then again on it.
    const pgliteDir = await folder();
    // A file, not `-e`: an eval'd module would make PGlite's eval'd worker a module too.
    const opener = join(pgliteDir, 'open.mjs');
    await writeFile(
      opener,
      `import { startPGliteWorker } from ${JSON.stringify(pathToFileURL(join(serverDir, 'dist/db/pglite-worker.js')).href)};
       const db = await startPGliteWorker(${JSON.stringify(join(pgliteDir, 'data'))}, { sharedBuffersMb: ${SHARED_BUFFERS_MB}, compiler: ${JSON.stringify(COMPILER)} });
       await db.query('select 1');
       console.log('ready');
       setInterval(() => {}, 1e6);`,
    );
    const openPglite = () =>
      spawn(process.execPath, [...nodeArgs, opener], { stdio: ['ignore', 'pipe', 'pipe'] });
    await idleOf('Node + PGlite, fresh folder (as the server opens it)', openPglite, 'ready');
    await idleOf('Node + PGlite, reopened', openPglite, 'ready');

    // engram serve: first start on a fresh folder, the load, a restart.
    const dataDir = await folder();
    const port = 38_000 + Math.floor(Math.random() * 2000);
    const serve = () =>
      spawn(process.execPath, [...nodeArgs, join(serverDir, 'dist/main.js'), 'serve'], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_URL: '',
          DATABASE_URL: '',
          REDIS_URL: '',
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const first = await measureStart(
      'engram serve, first start (fresh folder, migrated)',
      serve,
      (c) => waitForHealth(c, port),
    );
    readings.push(first.reading);
    loads.push(loadavg()[0]!);
    try {
      if (loadEntities > 0) {
        const peak = watchPeak(first.child.pid!);
        const seconds = await loadThroughMcp(`http://127.0.0.1:${port}`, loadEntities);
        const { polledMb } = await peak.read();
        peak.stop();
        loads.push(loadavg()[0]!);
        const loaded = `${loadEntities.toLocaleString('en')} entities + ${(2 * loadEntities).toLocaleString('en')} relations through MCP`;
        readings.push(
          await idleReading(
            `engram serve, ${settleMs / 1000} s after loading ${loaded}`,
            first.child.pid!,
            polledMb,
            `load took ${seconds.toFixed(1)} s; peak while loading`,
          ),
        );
        // The server's idle collection (decision 026) follows ~10 s after the first.
        await sleep(Math.max(0, settleAfterLoadMs - 2 * settleMs));
        readings.push(
          await idleReading(
            `engram serve, ${Math.max(settleAfterLoadMs, 2 * settleMs) / 1000} s after that load`,
            first.child.pid!,
          ),
        );
      }
    } finally {
      await stop(first.child);
    }
    const restarted = await measureStart(
      `engram serve, restarted on that folder${loadEntities > 0 ? ' (loaded)' : ''}`,
      serve,
      (c) => waitForHealth(c, port),
    );
    await stop(restarted.child);
    readings.push(restarted.reading);

    const memoryFile = join(await folder(), 'memory.jsonl');
    await idleOf(
      'reference: @modelcontextprotocol/server-memory (stdio, empty file)',
      () =>
        spawn(
          process.execPath,
          [join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
          {
            env: { ...process.env, MEMORY_FILE_PATH: memoryFile },
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        ),
      'running on stdio',
    );
  } finally {
    await Promise.all(folders.map((path) => rm(path, { recursive: true, force: true })));
  }
  loads.push(loadavg()[0]!);

  console.log(
    `resident memory (MB): idle = VmRSS after ${settleMs / 1000} s idle; peak = VmHWM / VmRSS every 50 ms` +
      ` while starting (or loading); load average ${loads.map((load) => load.toFixed(1)).join(' → ')}` +
      (nodeArgs.length ? `; node ${nodeArgs.join(' ')}` : ''),
  );
  console.log(`${'idle'.padStart(6)} ${'peak'.padStart(6)}`);
  for (const reading of readings) {
    const peak = reading.peakMb === undefined ? '' : reading.peakMb.toFixed(0);
    console.log(
      `${reading.mb.toFixed(0).padStart(6)} ${peak.padStart(6)}  ${reading.label}${reading.note ? ` (${reading.note})` : ''}`,
    );
    if (reading.parts) {
      const parts = Object.entries(reading.parts)
        .filter(([, kb]) => kb >= 1024)
        .sort((a, b) => b[1] - a[1])
        .map(([part, kb]) => `${mb(kb).toFixed(0)} ${part}`);
      console.log(`${' '.repeat(15)}= ${parts.join(' · ')}`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
