import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { EXIT_WHEN_SETTLED, runNodeProcess } from './node-process.js';

/** The part of PGlite the server uses, answered by a worker thread that owns the database. */
export interface EmbeddedPostgres {
  /**
   * With a name, the statement is parsed once and reused (db/prepared.ts).
   * `first` runs before it in the same round trip (a transaction's BEGIN), and
   * `last` after it when it succeeded (its COMMIT, db/pipeline.ts).
   */
  query<R>(
    sql: string,
    params?: unknown[],
    name?: string,
    first?: string,
    last?: string,
  ): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(script: string): Promise<void>;
  /**
   * The whole data folder as a gzipped tar (PGlite's `dumpDataDir`), taken
   * after a CHECKPOINT: every committed change is in its files, so the copy
   * opens without replaying anything. Call it between transactions.
   */
  dumpDataDir(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * The worker: opens PGlite (with the extensions the migrations use) and answers
 * one message at a time. It is plain CommonJS run with `eval`, so it needs no
 * build step and runs the same under tsx, vitest and the compiled server.
 * Errors travel as their fields (code, constraint, detail…), which is all the
 * server reads from them (lib/errors.ts).
 */
const WORKER_SOURCE = /* js */ `
  const { parentPort, workerData } = require('node:worker_threads');
  const { PGlite, parse, protocol } = require(workerData.modules.pglite);
  const { pg_trgm } = require(workerData.modules.pgTrgm);
  const { btree_gin } = require(workerData.modules.btreeGin);

  const settings = workerData.sharedBuffersMb
    ? ['-c', 'shared_buffers=' + workerData.sharedBuffersMb + 'MB']
    : [];
  const opened = PGlite.create(workerData.dataDir, {
    extensions: { pg_trgm, btree_gin },
    startParams: [...PGlite.defaultStartParams, ...settings],
    loadDataDir: workerData.startFrom ? new Blob([workerData.startFrom]) : undefined,
  });
  opened.catch(() => {});

  const fieldsOf = (error) => {
    const fields = { message: error && error.message ? error.message : String(error) };
    if (error && typeof error === 'object') {
      for (const [key, value] of Object.entries(error)) {
        if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
      }
    }
    return fields;
  };

  // Named statements (db/prepared.ts): parsed and described once, then only
  // bound and executed — PGlite's own query() parses every time. The steps
  // are those of query(), through its protocol API.
  const parameterTypes = new Map();
  const send = (db, message) => db.execProtocolStream(message, { syncToFs: false });
  const queryNamed = async (db, name, sql, params) => {
    const result = await db.runExclusive(async () => {
      const messages = [];
      try {
        let types = parameterTypes.get(name);
        if (!types) {
          await send(db, protocol.serialize.parse({ name, text: sql }));
          const described = await send(db, protocol.serialize.describe({ type: 'S', name }));
          types = parse.parseDescribeStatementResults(described);
          parameterTypes.set(name, types);
        }
        const values = params.map((value, index) => {
          if (value === null || value === undefined) return null;
          const serialize = db.serializers[types[index]];
          return serialize ? serialize(value) : value.toString();
        });
        messages.push(...(await send(db, protocol.serialize.bind({ statement: name, values }))));
        messages.push(...(await send(db, protocol.serialize.describe({ type: 'P' }))));
        messages.push(...(await send(db, protocol.serialize.execute({}))));
      } finally {
        messages.push(...(await send(db, protocol.serialize.sync())));
      }
      return parse.parseResults(messages, db.parsers)[0];
    });
    await db.syncToFs();
    return result;
  };

  // One message at a time, in the order sent: the server sends plain reads
  // without waiting for earlier answers (pglite-dialect.ts), and a statement
  // with its BEGIN must not be split by another.
  let turn = Promise.resolve();
  parentPort.on('message', (message) => {
    turn = turn.then(() => (message.op === 'collect' ? collect() : answer(message)));
  });

  // The idle collection (decision 026): asked for by the server's thread once
  // the database has been quiet for a while after some work.
  const collect = () => {
    if (typeof gc === 'function') gc();
  };

  const answer = async ({ id, op, sql, params, name, first, last }) => {
    try {
      const db = await opened;
      if (op === 'query') {
        if (first) await db.exec(first);
        const result = name ? await queryNamed(db, name, sql, params) : await db.query(sql, params);
        if (last) await db.exec(last);
        parentPort.postMessage({ id, rows: result.rows, affectedRows: result.affectedRows });
      } else if (op === 'exec') {
        await db.exec(sql);
        parentPort.postMessage({ id });
      } else if (op === 'dump') {
        // The checkpoint writes every dirty page into the data files: the copy
        // opens as a cleanly stopped database, with no WAL to replay.
        await db.exec('checkpoint');
        const tar = await (await db.dumpDataDir('gzip')).arrayBuffer();
        parentPort.postMessage({ id, data: tar }, [tar]);
      } else if (op === 'close') {
        await db.close();
        parentPort.postMessage({ id });
      } else {
        parentPort.postMessage({ id });
      }
    } catch (error) {
      parentPort.postMessage({ id, error: fieldsOf(error) });
    }
  };
`;

interface Reply {
  id: number;
  rows?: unknown[];
  affectedRows?: number;
  /** The data folder's tar, for `dump`. */
  data?: ArrayBuffer;
  error?: { message: string } & Record<string, unknown>;
}

/**
 * Starts PGlite in a worker thread (decision 006): its queries — a slow
 * search, an ANALYZE, a bulk insert — run on another core and never stall the
 * event loop that serves HTTP, MCP and WebSocket traffic. Resolves once the
 * database is open (rejects with PGlite's error when it cannot be).
 */
export async function startPGliteWorker(
  dataDir: string,
  options: PGliteOptions = {},
): Promise<EmbeddedPostgres> {
  if (!dataDir.startsWith('memory://') && !existsSync(join(dataDir, 'PG_VERSION'))) {
    await createDataFolder(dataDir, options);
  }
  return startWorker(dataDir, options);
}

/**
 * Creates a new data folder in a short-lived Node process of its own
 * (decision 026). PGlite runs initdb with a second PostgreSQL instance and a
 * copy of its 128 MB heap, ~700 MB at the peak; in a worker thread, the
 * memory the thread's malloc arena kept (~100 MB) stayed with the server for
 * its whole life. A process gives all of it back when it exits, and the
 * server's own process never holds initdb's peak.
 */
async function createDataFolder(dataDir: string, options: PGliteOptions): Promise<void> {
  const require = createRequire(import.meta.url);
  await runNodeProcess(
    [
      ...CREATE_FLAGS,
      '-e',
      CREATE_SOURCE,
      require.resolve('@electric-sql/pglite'),
      dataDir,
      JSON.stringify(settingsOf(options)),
    ],
    (reason) => new Error(`Could not create the database in ${dataDir}: ${reason}`),
  );
}

/** Node flags of the creating process (decision 026). */
const CREATE_FLAGS = ['--liftoff-only'];

/** The creating process: opens PGlite on the new folder (which runs initdb), closes it, exits. */
const CREATE_SOURCE = /* js */ `
  const [pglite, dataDir, settings] = process.argv.slice(1);
  const { PGlite } = require(pglite);
  PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, ...JSON.parse(settings)] })
    .then((db) => db.close())${EXIT_WHEN_SETTLED}`;

/** PostgreSQL settings PGlite starts with, as its start parameters. */
function settingsOf(options: PGliteOptions): string[] {
  return options.sharedBuffersMb ? ['-c', `shared_buffers=${options.sharedBuffersMb}MB`] : [];
}

/** How V8 compiles PGlite's WebAssembly (decision 032). */
export type PGliteCompiler = 'baseline' | 'optimizing';

export interface PGliteOptions {
  /** PostgreSQL's shared_buffers in MB; PGlite's default when absent. */
  sharedBuffersMb?: number | undefined;
  /** V8's default (optimizing) when absent. */
  compiler?: PGliteCompiler | undefined;
  /**
   * An in-memory database's first contents: a data folder's tar (`dumpDataDir`).
   * Tests start each database from one migrated copy instead of running
   * initdb and every migration again.
   */
  startFrom?: Uint8Array | undefined;
}

/**
 * Chooses how the worker about to start compiles PGlite (decision 032). With
 * the baseline compiler only, PostgreSQL's code is compiled once, quickly, and
 * never again: the optimizing tier's code and its compilers' memory (~55 MB
 * idle, more while loading) are never made, and PostgreSQL's own work
 * (search, bulk loads) takes 1.3–1.5× longer. A V8 flag, so it holds for the
 * whole process: set on every start.
 */
function chooseCompiler(compiler: PGliteCompiler | undefined): void {
  if (compiler)
    setFlagsFromString(compiler === 'baseline' ? '--liftoff-only' : '--no-liftoff-only');
}

/**
 * The idle collection (decision 026): V8 collects a thread's garbage only when
 * that thread allocates, so after a burst of work an idle server kept it —
 * ~100 MB after a bulk load, in the JS heaps of the main thread and the
 * worker. Once the database has had no query for IDLE_COLLECT_MS after at
 * least BUSY_QUERIES, both threads run a full collection (80–170 ms of the
 * main thread measured after a bulk load, at a moment it has nothing to
 * do; a request arriving then waits for it), and once more at the next
 * quiet moment FOLLOW_UP_MS later: what a request held while it finished
 * (sessions, buffers) is garbage only by then.
 */
const IDLE_COLLECT_MS = 2_000;
const BUSY_QUERIES = 50;
const FOLLOW_UP_MS = 10_000;

/**
 * Lets the worker (created after this) call `gc()`, and returns the main
 * thread's: V8 gives it to contexts created while --expose-gc is set, and a
 * new context's `gc` collects the whole isolate. Undefined when V8 refuses.
 */
function exposeGarbageCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

async function startWorker(dataDir: string, options: PGliteOptions): Promise<EmbeddedPostgres> {
  const require = createRequire(import.meta.url);
  const collectMain = exposeGarbageCollection();
  chooseCompiler(options.compiler);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // The worker only relays messages; a small young generation saves 10–20 MB (decision 032).
    resourceLimits: { maxYoungGenerationSizeMb: 3 },
    workerData: {
      dataDir,
      sharedBuffersMb: options.sharedBuffersMb,
      startFrom: options.startFrom,
      modules: {
        pglite: require.resolve('@electric-sql/pglite'),
        pgTrgm: require.resolve('@electric-sql/pglite/contrib/pg_trgm'),
        btreeGin: require.resolve('@electric-sql/pglite/contrib/btree_gin'),
      },
    },
  });
  const pending = new Map<
    number,
    { resolve: (reply: Reply) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  let stopped: Error | undefined;

  // The worker keeps the process alive only while it owes an answer.
  worker.unref();
  // The idle collection (see IDLE_COLLECT_MS); a new query calls a pending one off.
  let idleTimer: NodeJS.Timeout | undefined;
  let queriesSince = 0;
  let followUpAfter = Infinity;
  const collectWhenIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      const busy = queriesSince >= BUSY_QUERIES;
      if (stopped || (!busy && Date.now() < followUpAfter)) return;
      queriesSince = 0;
      followUpAfter = busy ? Date.now() + FOLLOW_UP_MS : Infinity;
      worker.postMessage({ op: 'collect' });
      collectMain?.();
    }, IDLE_COLLECT_MS);
    idleTimer.unref();
  };
  const settle = (id: number) => {
    pending.delete(id);
    if (pending.size === 0) {
      worker.unref();
      collectWhenIdle();
    }
  };
  worker.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    settle(reply.id);
    if (!waiting) return;
    if (reply.error) {
      waiting.reject(Object.assign(new Error(reply.error.message), reply.error));
    } else {
      waiting.resolve(reply);
    }
  });
  const fail = (error: Error) => {
    stopped = error;
    for (const [id, waiting] of pending) {
      settle(id);
      waiting.reject(error);
    }
  };
  worker.on('error', (error) => fail(new Error(`The embedded database stopped: ${error.message}`)));
  worker.on('exit', () => fail(new Error('The embedded database is closed')));

  const send = (
    op: string,
    sql = '',
    params?: unknown[],
    name?: string,
    first?: string,
    last?: string,
  ) =>
    new Promise<Reply>((resolve, reject) => {
      if (stopped) return reject(stopped);
      const id = nextId++;
      if (pending.size === 0) {
        worker.ref();
        clearTimeout(idleTimer);
      }
      queriesSince += 1;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op, sql, params, name, first, last });
    });

  try {
    await send('open');
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  return {
    async query<R>(sql: string, params?: unknown[], name?: string, first?: string, last?: string) {
      const reply = await send('query', sql, params, name, first, last);
      return {
        rows: (reply.rows ?? []) as R[],
        ...(reply.affectedRows === undefined ? {} : { affectedRows: reply.affectedRows }),
      };
    },
    async exec(script: string) {
      await send('exec', script);
    },
    async dumpDataDir() {
      const reply = await send('dump');
      return new Uint8Array(reply.data ?? new ArrayBuffer(0));
    },
    async close() {
      if (stopped) return;
      await send('close');
      await worker.terminate();
    },
  };
}
