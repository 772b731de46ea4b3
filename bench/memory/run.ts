/**
 * Idle memory: `engram serve` (compiled, embedded PGlite) on its first start in
 * a fresh folder and restarted on it, against the reference memory server, and
 * where Engram's goes (bare Node, Node with PGlite open, the app on top).
 *
 *   npm run bench:memory
 *
 * Each process is started alone, left idle for BENCH_SETTLE_S seconds
 * (default 5) after it answers, and its resident memory read from
 * /proc/<pid>/status (VmRSS). Results: bench/README.md ("bench/memory").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const serverDir = join(root, 'packages/server');
const settleMs = Number(process.env.BENCH_SETTLE_S ?? 5) * 1000;
/** The server's default PGLITE_SHARED_BUFFERS_MB (config.ts), or the one this run is given. */
const SHARED_BUFFERS_MB = Number(process.env.PGLITE_SHARED_BUFFERS_MB ?? 32);

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Starts a process, waits until `ready` says so, lets it idle, reads its memory, stops it. */
async function idleMemory(
  label: string,
  start: () => ChildProcess,
  ready: (child: ChildProcess) => Promise<void>,
): Promise<{ label: string; mb: number }> {
  const child = start();
  try {
    await ready(child);
    await sleep(settleMs);
    return { label, mb: await rssMb(child.pid!) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
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
    child.once('exit', (code) => reject(new Error(`exited with ${code} before "${marker}"`)));
  });

async function waitForHealth(port: number): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('engram serve did not become healthy');
}

async function main() {
  const folders: string[] = [];
  const folder = async () => {
    const path = await mkdtemp(join(tmpdir(), 'engram-bench-memory-'));
    folders.push(path);
    return path;
  };
  const results = [];
  try {
    results.push(
      await idleMemory(
        'Node alone (node -e, idle)',
        () =>
          spawn(process.execPath, ['-e', 'console.log("ready"); setInterval(() => {}, 1e6)'], {
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        (child) => waitForOutput(child, 'ready'),
      ),
    );
    const pgliteDir = await folder();
    // A file, not `-e`: an eval'd module would make PGlite's eval'd worker a module too.
    const opener = join(pgliteDir, 'open.mjs');
    await writeFile(
      opener,
      `import { startPGliteWorker } from ${JSON.stringify(pathToFileURL(join(serverDir, 'dist/db/pglite-worker.js')).href)};
       const db = await startPGliteWorker(${JSON.stringify(join(pgliteDir, 'data'))}, { sharedBuffersMb: ${SHARED_BUFFERS_MB} });
       await db.query('select 1');
       console.log('ready');
       setInterval(() => {}, 1e6);`,
    );
    results.push(
      await idleMemory(
        'Node + PGlite open on a fresh folder (as the server opens it: worker, settings)',
        () => spawn(process.execPath, [opener], { stdio: ['ignore', 'pipe', 'pipe'] }),
        (child) => waitForOutput(child, 'ready'),
      ),
    );
    const dataDir = await folder();
    const serve = () =>
      spawn(process.execPath, [join(serverDir, 'dist/main.js'), 'serve'], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          PORT: String(port),
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const port = 38_000 + Math.floor(Math.random() * 2000);
    // The first start also creates and migrates the folder; later starts only open it.
    results.push(
      await idleMemory(
        'Engram: engram serve, first start (fresh folder, migrated, idle)',
        serve,
        () => waitForHealth(port),
      ),
    );
    results.push(
      await idleMemory('Engram: engram serve, restarted on that folder (idle)', serve, () =>
        waitForHealth(port),
      ),
    );
    const memoryFile = join(await folder(), 'memory.jsonl');
    results.push(
      await idleMemory(
        'reference: @modelcontextprotocol/server-memory (stdio, idle)',
        () =>
          spawn(
            process.execPath,
            [join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
            {
              env: { ...process.env, MEMORY_FILE_PATH: memoryFile },
              stdio: ['pipe', 'pipe', 'pipe'],
            },
          ),
        (child) => waitForOutput(child, 'running on stdio'),
      ),
    );
  } finally {
    await Promise.all(folders.map((path) => rm(path, { recursive: true, force: true })));
  }
  console.log(
    `idle resident memory (VmRSS after ${settleMs / 1000} s idle), load ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const { label, mb } of results) console.log(`${mb.toFixed(0).padStart(6)} MB  ${label}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
