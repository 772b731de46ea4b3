/**
 * The server under test: a real `engram serve` in its own process (so the
 * subscribers' event loop in the bench process never shares a thread with the
 * gateway), on a fresh embedded PGlite data folder, with one account already
 * signed up on a plan whose entity limit the benchmark's writes cannot reach.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../packages/server/src/config.js';
import { createRuntime } from '../../packages/server/src/runtime.js';
import { startFlags } from '../start-flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = fileURLToPath(new URL('./.cache', import.meta.url));
const MAIN = 'packages/server/src/main.ts';

export interface Account {
  token: string;
  apiKey: string;
  accountId: string;
}

/**
 * Signs `count` users up straight through the services (the server is not
 * running yet and the data folder is locked while it is), and puts each
 * account on the Team plan: the free plan stops at 1,000 entities, fewer than
 * one run writes.
 */
export async function prepareAccounts(
  dataDir: string,
  databaseUrl: string,
  count: number,
): Promise<Account[]> {
  const runtime = await createRuntime(
    loadConfig({
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      // Many sign-ups from one address: not what a bench measures.
      AUTH_RATE_LIMIT_PER_MINUTE: String(Math.max(300, count * 10)),
    }),
  );
  try {
    const accounts: Account[] = [];
    for (let i = 0; i < count; i++) {
      const { token, user } = await runtime.auth.register(
        {
          email: `bench-${randomUUID().slice(0, 8)}@example.com`,
          password: 'Password123',
          firstName: 'Bench',
          lastName: 'Mark',
        },
        '127.0.0.1',
      );
      if (!user.apiKey) throw new Error('sign-up returned no personal API key');
      const auth = await runtime.authenticate(user.apiKey);
      if (!auth) throw new Error('the new personal API key does not authenticate');
      await runtime.database.db
        .insertInto('subscriptions')
        .values({ account_id: auth.accountId, plan_id: 'team', status: 'active' })
        .onConflict((conflict) =>
          conflict.column('account_id').doUpdateSet({ plan_id: 'team', status: 'active' }),
        )
        .execute();
      accounts.push({ token, apiKey: user.apiKey, accountId: auth.accountId });
    }
    return accounts;
  } finally {
    await runtime.close();
  }
}

/** One account, as `prepareAccounts` makes them. */
export async function prepareAccount(dataDir: string, databaseUrl = ''): Promise<Account> {
  return (await prepareAccounts(dataDir, databaseUrl, 1))[0]!;
}

/**
 * A fresh database on the PostgreSQL server at `serverUrl` (BENCH_DATABASE_URL),
 * as the test harness makes one; dropped by the returned function.
 */
export async function createDatabase(
  serverUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `engram_bench_rt_${randomUUID().replaceAll('-', '')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A copy of the server's sources to run instead of the working tree's: those
 * at a git ref (BENCH_SERVER_REF), else the working tree's, with gateway.ts
 * taken from another ref when `gatewayRef` is given (BENCH_GATEWAY_REF, to
 * A/B a gateway change alone). Kept under bench/realtime/.cache so imports
 * still resolve from the repo's node_modules (@engram/shared is the working
 * tree's build); removed by `cleanup`.
 */
export function exportServer(
  ref: string,
  gatewayRef = '',
): { main: string; cleanup: () => Promise<void> } {
  const label = `${ref || 'worktree'}${gatewayRef ? `-gateway-${gatewayRef}` : ''}`;
  const dir = join(CACHE, `server-${label.replace(/[^\w.-]/g, '_')}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const sh = (script: string, ...args: string[]) =>
    execFileSync('sh', ['-c', script, 'sh', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  if (ref) sh('git archive "$1" packages/server/src | tar -x -C "$2"', ref, dir);
  else sh('mkdir -p "$1/packages/server" && cp -r packages/server/src "$1/packages/server/"', dir);
  if (gatewayRef) {
    const gateway = 'packages/server/src/realtime/gateway.ts';
    sh('git show "$1:$2" > "$3/$2"', gatewayRef, gateway, dir);
  }
  return {
    main: join(dir, MAIN),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Seconds of CPU (user + system) the server process has used so far. */
  cpuSeconds(): Promise<number>;
  /** SIGTERM, wait for exit; returns the .cpuprofile path when profiling. */
  stop(): Promise<string | undefined>;
}

export interface StartOptions {
  dataDir: string;
  /** PostgreSQL instead of the embedded PGlite in dataDir. */
  databaseUrl?: string | undefined;
  /** Entry point; the working tree's main.ts unless an exported ref's. */
  main?: string;
  /** Write a V8 CPU profile of the server (node --cpu-prof) into this folder. */
  profileDir?: string | undefined;
  /** More Node flags for the server (an A/B of a setting), after those `npm start` gives an embedded one. */
  nodeArgs?: string[] | undefined;
}

const CLOCK_TICKS = 100;

async function processCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * `node --import tsx main.ts serve` (one process, not tsx's CLI, which would
 * put the server in a grandchild whose CPU could not be read), ready when
 * /healthz answers.
 */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const port = await freePort();
  const main = options.main ?? join(ROOT, MAIN);
  const args = [
    ...(options.databaseUrl ? [] : startFlags()),
    ...(options.nodeArgs ?? []),
    '--import',
    import.meta.resolve('tsx'),
  ];
  if (options.profileDir) {
    await mkdir(options.profileDir, { recursive: true });
    args.push('--cpu-prof', `--cpu-prof-dir=${options.profileDir}`);
  }
  args.push(main, 'serve');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      DATABASE_URL: options.databaseUrl ?? '',
      REDIS_URL: '',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      // One account with 1,000 subscribers and one writer at 200 writes/s: a
      // deployment that serves that raises the per-account caps the same way.
      WS_MAX_CONNECTIONS_PER_KEY: '2000',
      WS_MAX_CONNECTIONS_PER_ACCOUNT: '2000',
      API_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  let ready = false;
  for (let attempt = 0; attempt < 600 && child.exitCode === null; attempt++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) {
        ready = true;
        break;
      }
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`server (${relative(ROOT, main)}) did not start`);
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    child,
    cpuSeconds: () => processCpuSeconds(pid),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      if (!options.profileDir) return undefined;
      const profiles = (await readdir(options.profileDir))
        .filter((name) => name.endsWith('.cpuprofile') && name.includes(`.${pid}.`))
        .map((name) => join(options.profileDir!, name));
      return profiles[0];
    },
  };
}
