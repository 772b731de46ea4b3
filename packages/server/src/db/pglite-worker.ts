import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** The part of PGlite the server uses, answered by a worker thread that owns the database. */
export interface EmbeddedPostgres {
  /**
   * With a name, the statement is parsed once and reused (db/prepared.ts).
   * `first` runs before it in the same round trip (a transaction's BEGIN).
   */
  query<R>(
    sql: string,
    params?: unknown[],
    name?: string,
    first?: string,
  ): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(script: string): Promise<void>;
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
    turn = turn.then(() => answer(message));
  });

  const answer = async ({ id, op, sql, params, name, first }) => {
    try {
      const db = await opened;
      if (op === 'query') {
        if (first) await db.exec(first);
        const result = name ? await queryNamed(db, name, sql, params) : await db.query(sql, params);
        parentPort.postMessage({ id, rows: result.rows, affectedRows: result.affectedRows });
      } else if (op === 'exec') {
        await db.exec(sql);
        parentPort.postMessage({ id });
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
  options: WorkerOptions = {},
): Promise<EmbeddedPostgres> {
  if (!dataDir.startsWith('memory://') && !existsSync(join(dataDir, 'PG_VERSION'))) {
    // A new folder: PGlite runs initdb in a WebAssembly instance of its own,
    // whose memory (hundreds of MB) the serving worker would hold for its whole
    // life. Create the folder in a worker that then ends, taking that with it.
    await (await startWorker(dataDir, options)).close();
  }
  return startWorker(dataDir, options);
}

interface WorkerOptions {
  /** PostgreSQL's shared_buffers in MB; PGlite's default when absent. */
  sharedBuffersMb?: number | undefined;
}

async function startWorker(dataDir: string, options: WorkerOptions): Promise<EmbeddedPostgres> {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      dataDir,
      sharedBuffersMb: options.sharedBuffersMb,
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
  const settle = (id: number) => {
    pending.delete(id);
    if (pending.size === 0) worker.unref();
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

  const send = (op: string, sql = '', params?: unknown[], name?: string, first?: string) =>
    new Promise<Reply>((resolve, reject) => {
      if (stopped) return reject(stopped);
      const id = nextId++;
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op, sql, params, name, first });
    });

  try {
    await send('open');
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  return {
    async query<R>(sql: string, params?: unknown[], name?: string, first?: string) {
      const reply = await send('query', sql, params, name, first);
      return {
        rows: (reply.rows ?? []) as R[],
        ...(reply.affectedRows === undefined ? {} : { affectedRows: reply.affectedRows }),
      };
    },
    async exec(script: string) {
      await send('exec', script);
    },
    async close() {
      if (stopped) return;
      await send('close');
      await worker.terminate();
    },
  };
}
