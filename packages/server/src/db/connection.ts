import { chmod, mkdir } from 'node:fs/promises';
import { Kysely, PostgresDialect, sql, type Dialect } from 'kysely';
import pg from 'pg';
import { lockDataFolder } from './data-lock.js';
import { ConnectionQueue } from './connection-queue.js';
import { withDeadlines } from './deadline.js';
import { pipelinedPool } from './pg-pool.js';
import { PGliteDialect } from './pglite-dialect.js';
import { startPGliteWorker, type PGliteCompiler, type PGliteOptions } from './pglite-worker.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

/** One database session for scripts that must run statement after statement on it. */
export interface RawSession {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs several statements separated by semicolons, without parameters. */
  exec(script: string): Promise<void>;
  /**
   * PGlite only: the whole data folder as a gzipped tar, every committed
   * change in it (backup.ts). In a session nothing else runs meanwhile.
   */
  dumpDataDir?(): Promise<Uint8Array>;
}

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  withSession<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data folder, or 'memory://' for a throwaway in-memory database. */
  dataDir: string;
  /** Longest a statement or transaction may run (see deadline.ts); unbounded when absent. */
  statementTimeoutMs?: number | undefined;
  /** PostgreSQL: connections in use at once (config DATABASE_POOL_SIZE); POOL_SIZE when absent. */
  poolSize?: number | undefined;
  /** PGlite's shared_buffers in MB (config PGLITE_SHARED_BUFFERS_MB); PGlite's own default when absent. */
  sharedBuffersMb?: number | undefined;
  /** How V8 compiles PGlite (config PGLITE_COMPILER); V8's default (optimizing) when absent. */
  pgliteCompiler?: PGliteCompiler | undefined;
  /** PGlite in memory: the data folder's tar it starts from (see pglite-worker.ts). */
  startFrom?: Uint8Array | undefined;
}

/** Throws when the database does not answer (the health check). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.statementTimeoutMs, options.poolSize ?? POOL_SIZE)
    : openPGlite(options.dataDir, options.statementTimeoutMs, {
        sharedBuffersMb: options.sharedBuffersMb,
        compiler: options.pgliteCompiler,
        startFrom: options.startFrom,
      });
}

function bounded(dialect: Dialect, timeoutMs: number | undefined): Dialect {
  return timeoutMs === undefined ? dialect : withDeadlines(dialect, timeoutMs);
}

async function openPGlite(
  dataDir: string,
  timeoutMs: number | undefined,
  options: PGliteOptions,
): Promise<DatabaseHandle> {
  let unlock = () => {};
  if (!dataDir.startsWith('memory://')) {
    await mkdir(dataDir, { recursive: true });
    // PGlite writes its files readable by everyone; the folder is the owner's
    // alone, as PostgreSQL insists of its own (docs/security.md).
    await chmod(dataDir, 0o700);
    unlock = lockDataFolder(dataDir);
  }
  const pglite = await startPGliteWorker(dataDir, options).catch((error: unknown) => {
    unlock();
    throw error;
  });
  const dialect = new PGliteDialect(pglite);
  const db = new Kysely<Database>({ dialect: bounded(dialect, timeoutMs) });
  const session: RawSession = {
    query: async <R>(text: string, params?: unknown[]) =>
      (await pglite.query<R>(text, params)).rows,
    exec: async (script) => {
      await pglite.exec(script);
    },
    dumpDataDir: () => pglite.dumpDataDir(),
  };
  return {
    db,
    kind: 'pglite',
    // The database to itself, so nothing interleaves (migrations open their own
    // transactions). Its statements bypass the deadline: maintenance (migrations,
    // ANALYZE) may take long.
    withSession: (fn) => dialect.exclusive(() => fn(session)),
    close: async () => {
      await db.destroy();
      unlock();
    },
  };
}

/**
 * PostgreSQL connections a server uses at once unless told (decision 035):
 * about twice the cores of a small database server. Its requests past that
 * wait in the server, where writes can go first.
 */
const POOL_SIZE = 5;

/** PostgreSQL settings for the server's own connections (decision 013). */
const OLTP_SETTINGS = '-c jit=off -c max_parallel_workers_per_gather=0';

async function openPostgres(
  connectionString: string,
  timeoutMs: number | undefined,
  poolSize: number,
): Promise<DatabaseHandle> {
  const pool = new pg.Pool({
    connectionString,
    // The queue below gives out `poolSize`; one more serves maintenance (`withSession`).
    max: poolSize + 1,
    // Statements leave as soon as they are asked for: a transaction's BEGIN and
    // COMMIT travel with its first and last statements (pg-pool.ts, decision 031).
    pipeline: true,
    // The server cancels any statement running longer (error 57014 → 503).
    ...(timeoutMs === undefined ? {} : { statement_timeout: timeoutMs }),
    // Every statement is a short, bounded read or write: JIT compilation and
    // parallel workers only add their start-up time to it (decision 013).
    options: OLTP_SETTINGS,
  });
  // An idle connection the server drops (restart, failover) must not crash the
  // process: the pool discards it and the next query opens a new one.
  pool.on('error', (error) => {
    console.error(`PostgreSQL connection lost: ${error.message}`);
  });
  const db = new Kysely<Database>({
    dialect: bounded(
      new PostgresDialect({ pool: pipelinedPool(pool, new ConnectionQueue(poolSize, timeoutMs)) }),
      timeoutMs,
    ),
  });
  return {
    db,
    kind: 'postgres',
    withSession: async (fn) => {
      const client = await pool.connect();
      try {
        // Maintenance (migrations, ANALYZE) may take long: no statement timeout in this session.
        await client.query('set statement_timeout = 0');
        return await fn({
          query: async <R>(text: string, params?: unknown[]) =>
            (await client.query(text, params)).rows as R[],
          exec: async (script) => {
            await client.query(script);
          },
        });
      } finally {
        await client.query('reset statement_timeout').catch(() => undefined);
        client.release();
      }
    },
    close: () => db.destroy(),
  };
}
