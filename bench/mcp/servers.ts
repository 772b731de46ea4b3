/**
 * The two servers under test, each behind a real MCP client:
 * - Engram: `engram serve` in its own process (the default), or the whole app
 *   in this process (BENCH_SERVER=inprocess: what lets the bench count and
 *   trace its SQL), on PGlite in a fresh folder or a fresh PostgreSQL
 *   database, reached over a localhost socket with an API key.
 * - the reference @modelcontextprotocol/server-memory, spawned over stdio with
 *   a fresh JSONL file.
 * Both server processes carry probe.mjs, which reports their own event-loop
 * stalls and peak memory.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import {
  PostgresQueryCompiler,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import { buildApp } from '../../packages/server/src/app.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { openDatabase, type DatabaseHandle } from '../../packages/server/src/db/connection.js';
import { createRuntime, type Runtime } from '../../packages/server/src/runtime.js';
import { startFlags } from '../start-flags.js';
import { createDatabase, exportServer, freePort, prepareAccount } from '../realtime/server.js';

export type DbKind = 'pglite' | 'postgres';

export interface ToolAnswer {
  entities: number;
  relations: number;
  /** The structured result, for size checks. */
  structured: Record<string, unknown>;
}

export interface Side {
  label: string;
  /**
   * The server's own process (bench/mcp/probe.mjs): its longest event-loop
   * stall and peak resident memory since the previous call. Absent when the
   * server runs inside the bench process.
   */
  probe?: () => Promise<ProbeReport>;
  call(tool: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** SQL statements run and their summed time so far (Engram only). */
  sql?: () => { statements: number; ms: number };
  /** Diagnostic: refreshes the planner statistics of Engram's database (which nothing else does on PGlite). */
  analyze?: () => Promise<void>;
  /**
   * Makes the call while recording its SQL, then EXPLAIN ANALYZEs each read
   * statement slower than `explainOverMs` (Engram only).
   */
  trace?: (
    tool: string,
    args: Record<string, unknown>,
    explainOverMs: number,
  ) => Promise<{ statement: CapturedStatement; plan?: string }[]>;
  close(): Promise<void>;
}

export interface ProbeReport {
  loopMaxMs: number;
  peakRssMb: number;
  rssMb: number;
}

const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));

/** Asks the probe in process `pid` for its report (SIGUSR2) and waits for it in `file`. */
function probeOf(pid: () => number | null | undefined, file: string): () => Promise<ProbeReport> {
  let last = 0;
  return async () => {
    const id = pid();
    if (!id) throw new Error('the server process is gone');
    process.kill(id, 'SIGUSR2');
    for (let attempt = 0; attempt < 1000; attempt++) {
      try {
        const report = JSON.parse(await readFile(file, 'utf8')) as ProbeReport & { report: number };
        if (report.report > last) {
          last = report.report;
          return report;
        }
      } catch {
        /* not written yet, or half written */
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('the probe of the server process did not answer');
  };
}

/** Long enough for a 1,000-item batch against a 100k-entity reference file. */
const CALL_TIMEOUT_MS = 30 * 60 * 1000;

async function callTool(
  client: ToolClient,
  tool: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const result = (await client.callTool(
    { name: tool, arguments: args },
    { timeout: CALL_TIMEOUT_MS, maxTotalTimeout: CALL_TIMEOUT_MS },
  )) as CallToolResult;
  if (result.isError) {
    const first = result.content[0];
    throw new Error(`${tool} failed: ${first && first.type === 'text' ? first.text : '?'}`);
  }
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  const count = (key: string) => {
    const value = structured[key];
    return Array.isArray(value) ? value.length : 0;
  };
  return {
    entities: count('entities') || count('results'),
    relations: count('relations'),
    structured,
  };
}

/** What the bench needs of an MCP client of either era. */
interface ToolClient {
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    options: { timeout: number; maxTotalTimeout: number },
  ): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A real client of Engram's /mcp acting with `apiKey`: by default the 1.x
 * SDK's (the 2025 era, a session, as most agents today); with
 * BENCH_ERA=modern the v2 SDK's, pinned to the stateless 2026-07-28 revision.
 */
async function connectEngram(baseUrl: string, apiKey: string): Promise<ToolClient> {
  const url = new URL('/mcp', baseUrl);
  const requestInit = { headers: { authorization: `Bearer ${apiKey}` } };
  if (process.env.BENCH_ERA === 'modern') {
    const client = new ModernClient(
      { name: 'engram-bench-mcp', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernHttpTransport(url, { requestInit }));
    return {
      callTool: (params, options) => client.callTool(params, options),
      close: () => client.close(),
    };
  }
  const client = new Client({ name: 'engram-bench-mcp', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return legacyClient(client);
}

function legacyClient(client: Client): ToolClient {
  return {
    callTool: (params, options) => client.callTool(params, undefined, options),
    close: () => client.close(),
  };
}

// ── Engram ──────────────────────────────────────────────────────────────────

export interface CapturedStatement {
  sql: string;
  parameters: readonly unknown[];
  /** From handing the query to the driver until its rows came back (includes queueing for PGlite's one connection). */
  ms: number;
  rows: number;
}

/**
 * Counts every SQL statement the app runs (not BEGIN/COMMIT) and the time
 * until its rows come back; while `capture` is set, also records each one.
 */
class StatementCounter implements KyselyPlugin {
  statements = 0;
  ms = 0;
  capture: Map<unknown, CapturedStatement> | undefined;
  readonly #started = new Map<unknown, number>();
  readonly #compiler = new PostgresQueryCompiler();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.statements += 1;
    this.#started.set(args.queryId, performance.now());
    if (this.capture) {
      const compiled = this.#compiler.compileQuery(args.node, args.queryId);
      this.capture.set(args.queryId, {
        sql: compiled.sql,
        parameters: compiled.parameters,
        ms: 0,
        rows: 0,
      });
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const started = this.#started.get(args.queryId);
    if (started !== undefined) {
      const ms = performance.now() - started;
      this.ms += ms;
      this.#started.delete(args.queryId);
      const captured = this.capture?.get(args.queryId);
      if (captured) {
        captured.ms = ms;
        captured.rows = args.result.rows.length;
      }
    }
    return args.result;
  }
}

/** A fresh PostgreSQL database on the server at `serverUrl`, dropped on close (as the test harness does). */
async function freshPostgres(
  serverUrl: string,
): Promise<{ handle: DatabaseHandle; where: string }> {
  const name = `engram_bench_mcp_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  return {
    where: `PostgreSQL database ${name} on ${url.host}`,
    handle: {
      ...handle,
      close: async () => {
        await handle.close();
        const cleanup = new pg.Client({ connectionString: serverUrl });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${name} with (force)`);
        await cleanup.end();
      },
    },
  };
}

export async function startEngram(
  kind: DbKind,
  postgresUrl: string,
  log: (line: string) => void,
): Promise<Side> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-mcp-'));
  const opened =
    kind === 'pglite'
      ? {
          handle: await openDatabase({
            dataDir,
            sharedBuffersMb: loadConfig({ ...process.env, LOG_LEVEL: 'silent' })
              .PGLITE_SHARED_BUFFERS_MB,
          }),
          where: `PGlite in ${dataDir}`,
        }
      : await freshPostgres(postgresUrl);
  log(`database: ${opened.where}`);
  const counter = new StatementCounter();
  const handle: DatabaseHandle = { ...opened.handle, db: opened.handle.db.withPlugin(counter) };
  let runtime: Runtime | undefined;
  let app: FastifyInstance | undefined;
  let client: ToolClient | undefined;
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'test', DATA_DIR: dataDir });
    runtime = await createRuntime(config, { database: handle });
    // buildApp takes the services as `runtime` (and, before that change, the
    // database as `database`): give both, so the bench runs against either.
    const buildOptions = { config, runtime, database: handle };
    app = await buildApp(buildOptions);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no TCP address');
    const baseUrl = `http://127.0.0.1:${address.port}`;

    const register = await fetch(`${baseUrl}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `bench-mcp-${randomUUID().slice(0, 8)}@example.com`,
        password: 'Password123',
        firstName: 'Bench',
        lastName: 'Mark',
      }),
    });
    if (register.status !== 201) throw new Error(`sign-up failed: ${await register.text()}`);
    const { user } = (await register.json()) as { user: { id: string; apiKey: string } };

    // The free plan stops at 1,000 entities; the team plan allows 1M.
    await opened.handle.withSession(async (session) => {
      const updated = await session.query(
        `update subscriptions set plan_id = 'team'
          where account_id in (select account_id from account_members where user_id = $1)
          returning account_id`,
        [user.id],
      );
      if (updated.length !== 1)
        throw new Error('could not move the bench account to the team plan');
    });

    client = await connectEngram(baseUrl, user.apiKey);
  } catch (error) {
    await client?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await opened.handle.close().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  const connected = client;
  const server = app;
  const services = runtime;
  return {
    label: kind === 'pglite' ? 'Engram (PGlite)' : 'Engram (PostgreSQL)',
    call: (tool, args) => callTool(connected, tool, args),
    sql: () => ({ statements: counter.statements, ms: counter.ms }),
    analyze: () => opened.handle.withSession((session) => session.exec('analyze')),
    async trace(tool, args, explainOverMs) {
      // Other work (a usage flush) may slip a statement in; each is shown with its SQL.
      const capture = new Map<unknown, CapturedStatement>();
      counter.capture = capture;
      try {
        await callTool(connected, tool, args);
      } finally {
        counter.capture = undefined;
      }
      const statements = [...capture.values()];
      const traced: { statement: CapturedStatement; plan?: string }[] = [];
      for (const statement of statements) {
        const read =
          /^\s*(\/\*.*?\*\/\s*)?(select|with)\b/is.test(statement.sql) &&
          !/for update/i.test(statement.sql);
        if (!read || statement.ms < explainOverMs) {
          traced.push({ statement });
          continue;
        }
        const plan = await opened.handle.withSession((session) =>
          session.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${statement.sql}`, [
            ...statement.parameters,
          ]),
        );
        traced.push({ statement, plan: plan.map((row) => row['QUERY PLAN']).join('\n') });
      }
      return traced;
    },
    async close() {
      await connected.close().catch(() => undefined);
      if (process.env.BENCH_TRACE !== undefined) await reportReplanned(opened.handle, log);
      await server.close();
      await services.close();
      await opened.handle.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Diagnostic (BENCH_TRACE): the named statements of one database session that
 * PostgreSQL kept planning for their values after its five trial plans — a
 * statement marked "plan once" whose generic plan looked costlier than the
 * custom ones (typically an array parameter whose length only a custom plan
 * sees). On PostgreSQL this is one pooled connection's statements.
 */
async function reportReplanned(handle: DatabaseHandle, log: (line: string) => void) {
  const rows = await handle.withSession((session) =>
    session.query<{ custom: number; generic: number; statement: string }>(
      `select custom_plans::int as custom, generic_plans::int as generic,
              left(regexp_replace(statement, '\\s+', ' ', 'g'), 110) as statement
         from pg_prepared_statements where custom_plans > 5 order by custom_plans desc`,
    ),
  );
  log(`named statements planned for every call after the first five: ${rows.length}`);
  for (const row of rows) log(`  ${row.custom} custom / ${row.generic} generic  ${row.statement}`);
}

/**
 * Engram as a person runs it: `engram serve` in its own process (`node
 * --import tsx main.ts serve`, with the probe preloaded), on a fresh PGlite
 * folder or PostgreSQL database, one account on the Team plan signed up
 * before it starts, reached over Streamable HTTP with that account's key.
 * Its event loop and memory are the server's alone.
 */
export async function startEngramProcess(
  kind: DbKind,
  postgresUrl: string,
  log: (line: string) => void,
  /** A git ref whose server sources to run instead of the working tree's (an A/B in one run). */
  serverRef = '',
): Promise<Side> {
  const exported = serverRef ? exportServer(serverRef) : undefined;
  if (exported) log(`server sources of ${serverRef}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-mcp-'));
  const database = kind === 'postgres' ? await createDatabase(postgresUrl) : undefined;
  log(`database: ${database ? database.url : `PGlite in ${dataDir}`}; server in its own process`);
  const account = await prepareAccount(dataDir, database?.url ?? '');
  const probeFile = join(dataDir, 'probe.json');
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      '--import',
      PROBE,
      // Diagnostic: a V8 CPU profile of the server's main thread and its PGlite worker.
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      // The embedded server as `npm start` runs it.
      ...(database ? [] : startFlags()),
      ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
      exported?.main ?? SERVER_MAIN,
      'serve',
    ],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: database?.url ?? '',
        REDIS_URL: '',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        BENCH_PROBE_FILE: probeFile,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
    await exported?.cleanup();
  };
  let client: ToolClient | undefined;
  try {
    await waitForHealth(baseUrl, () => child.exitCode !== null);
    client = await connectEngram(baseUrl, account.apiKey);
  } catch (error) {
    await client?.close().catch(() => undefined);
    await stop();
    throw error;
  }
  const connected = client;
  return {
    label: kind === 'pglite' ? 'Engram (PGlite)' : 'Engram (PostgreSQL)',
    probe: probeOf(() => child.pid, probeFile),
    call: (tool, args) => callTool(connected, tool, args),
    async close() {
      await connected.close().catch(() => undefined);
      await stop();
    },
  };
}

const SERVER_MAIN = fileURLToPath(new URL('../../packages/server/src/main.ts', import.meta.url));

async function waitForHealth(baseUrl: string, gone: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 600 && !gone(); attempt++) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the Engram server did not start');
}

// ── the reference server ────────────────────────────────────────────────────

const REFERENCE_CANDIDATES = [
  '../../node_modules/@modelcontextprotocol/server-memory/dist/index.js',
  '../../packages/server/node_modules/@modelcontextprotocol/server-memory/dist/index.js',
].map((path) => fileURLToPath(new URL(path, import.meta.url)));

/**
 * The SDK's stdio ReadBuffer concatenates the whole pending buffer with every
 * 64 KB chunk and rescans it for a newline, which is quadratic in the message
 * size: a 100 MB read_graph answer would spend most of its time in the client.
 * This buffer is linear, so the reference is not charged for a client-side cost.
 */
class LinearReadBuffer {
  #pending: Buffer[] = [];
  #lines: Buffer[] = [];

  append(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.#pending.push(chunk.subarray(start, newline));
      this.#lines.push(Buffer.concat(this.#pending));
      this.#pending = [];
      start = newline + 1;
    }
    if (start < chunk.length) this.#pending.push(chunk.subarray(start));
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.shift();
    if (!line) return null;
    return deserializeMessage(line.toString('utf8').replace(/\r$/, ''));
  }

  clear(): void {
    this.#pending = [];
    this.#lines = [];
  }
}

export async function startReference(log: (line: string) => void): Promise<Side> {
  const script = REFERENCE_CANDIDATES.find((path) => existsSync(path));
  if (!script) {
    throw new Error('@modelcontextprotocol/server-memory is not installed (run npm install)');
  }
  const dir = await mkdtemp(join(tmpdir(), 'engram-bench-mcp-ref-'));
  const file = join(dir, 'memory.jsonl');
  log(`reference: node ${script} with MEMORY_FILE_PATH=${file}`);
  const probeFile = join(dir, 'probe.json');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', PROBE, script],
    env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: file, BENCH_PROBE_FILE: probeFile },
    stderr: 'pipe',
  });
  (transport as unknown as { _readBuffer: LinearReadBuffer })._readBuffer = new LinearReadBuffer();
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  const client = new Client({ name: 'engram-bench-mcp', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`reference server did not start: ${String(error)}\n${stderr}`);
  }
  const caller = legacyClient(client);
  return {
    label: 'reference (server-memory)',
    probe: probeOf(() => transport.pid, probeFile),
    async call(tool, args) {
      try {
        return await callTool(caller, tool, args);
      } catch (error) {
        throw new Error(`${String(error)}\nreference stderr: ${stderr.trim()}`);
      }
    },
    async close() {
      const size = await stat(file).then(
        (info) => info.size,
        () => 0,
      );
      log(`reference file: ${(size / 1_048_576).toFixed(1)} MB`);
      await client.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
