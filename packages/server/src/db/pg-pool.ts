import type { Writable } from 'node:stream';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { endsTransaction } from './pipeline.js';
import { StatementNames } from './prepared.js';

type Sent = Promise<pg.QueryResult>;

/** What Kysely's PostgreSQL driver gives for a statement it sends itself. */
const NO_ROWS = { command: 'SELECT', rowCount: 0, rows: [] };

/**
 * One pooled connection as Kysely sees it. Marked statements go as named ones
 * (decision 015). The pool runs in node-postgres' pipeline mode, where a
 * statement leaves as soon as it is asked for, so this connection can send a
 * transaction's BEGIN with its first statement and a `thenCommit` statement
 * with its COMMIT (decision 031), both in one write to the socket.
 */
class PipelinedClient {
  /** The transaction's BEGIN, held back until its first statement. */
  private pendingBegin: string | undefined;
  /** The transaction already ended with its last statement's COMMIT (or was rolled back by it). */
  private ended = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  async query(text: string, values: readonly unknown[]): Promise<unknown> {
    if (text === 'begin' || text.startsWith('start transaction')) {
      this.pendingBegin = text;
      this.ended = false;
      return NO_ROWS;
    }
    if (text === 'commit' || text === 'rollback') {
      // A transaction that never ran a statement was never opened.
      if (this.pendingBegin !== undefined || this.ended) {
        this.pendingBegin = undefined;
        this.ended = false;
        return NO_ROWS;
      }
      return this.send(text, []);
    }
    const begin = this.pendingBegin;
    this.pendingBegin = undefined;
    const last = endsTransaction(text);
    const [begun, answer, committed] = await Promise.allSettled(
      this.together(
        () =>
          [
            begin === undefined ? undefined : this.send(begin, []),
            this.send(text, values),
            last ? this.send('commit', []) : undefined,
          ] as const,
      ),
    );
    if (begun.status === 'rejected') throw begun.reason;
    // A failed statement aborts the transaction; the COMMIT behind it then rolls it back.
    this.ended = last;
    if (answer.status === 'rejected') throw answer.reason;
    if (committed.status === 'rejected') throw committed.reason;
    return answer.value;
  }

  private send(text: string, values: readonly unknown[]): Sent {
    const name = this.names.nameOf(text);
    return name === undefined
      ? this.client.query(text, [...values])
      : this.client.query({ name, text, values: [...values] });
  }

  /** Sends the statements in one write to the socket (node-postgres writes each on its own). */
  private together<T>(send: () => T): T {
    const stream = (this.client as { connection?: { stream?: Writable } }).connection?.stream;
    stream?.cork?.();
    try {
      return send();
    } finally {
      stream?.uncork?.();
    }
  }
}

/**
 * The pool as Kysely's PostgreSQL dialect takes it. `pool` must be created
 * with `pipeline: true` (db/connection.ts).
 */
export function pipelinedPool(pool: pg.Pool, names = new StatementNames()): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const pipelined = new PipelinedClient(client, names);
    // Kysely passes a cursor only for streaming, which this dialect is not given.
    return {
      query: ((text: string, values: readonly unknown[]) =>
        pipelined.query(text, values)) as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };
  return {
    connect: async () => {
      const client = await pool.connect();
      let kept = wrapped.get(client);
      if (!kept) wrapped.set(client, (kept = wrap(client)));
      return kept;
    },
    end: () => pool.end(),
  };
}
