import type { Writable } from 'node:stream';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { ConnectionQueue, type Use } from './connection-queue.js';
import { endsTransaction } from './pipeline.js';
import { StatementNames } from './prepared.js';

type Sent = Promise<pg.QueryResult>;

/** A statement outside a transaction that writes (the usage meter's, say): it goes first as well. */
const CHANGES_ROWS = /^\s*(insert|update|delete)\b/i;

/** What Kysely's PostgreSQL driver gives for a statement it sends itself. */
const NO_ROWS = { command: 'SELECT', rowCount: 0, rows: [] };

/**
 * One use of a pooled connection as Kysely sees it, from its first statement
 * to its release. The pooled connection itself is taken at the first
 * statement, when it is known whether a transaction begins: the queue lets a
 * write go first (decisions 035, 037). Marked statements go as named ones
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
  /** The pooled connection, once the first statement asked for it; every later one waits for the same. */
  private connection: Promise<pg.PoolClient> | undefined;
  /** The connection once taken, and what for: what `release` gives back. */
  private taken: { client: pg.PoolClient; use: Use } | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly queue: ConnectionQueue,
    private readonly names: StatementNames,
  ) {}

  async query(text: string, values: readonly unknown[]): Promise<unknown> {
    if (text === 'begin' || text.startsWith('start transaction')) {
      this.pendingBegin = text;
      this.ended = false;
      return NO_ROWS;
    }
    if (text === 'commit' || text === 'rollback') {
      // A transaction that never ran a statement was never opened; one whose
      // last statement carried its COMMIT is over.
      const open = this.pendingBegin === undefined && !this.ended;
      this.pendingBegin = undefined;
      this.ended = false;
      const client = open ? await this.opened() : undefined;
      return client ? this.send(client, text, []) : NO_ROWS;
    }
    const begin = this.pendingBegin;
    this.pendingBegin = undefined;
    const last = endsTransaction(text);
    const client = await this.connect(
      begin !== undefined || CHANGES_ROWS.test(text) ? 'write' : 'read',
    );
    const [begun, answer, committed] = await Promise.allSettled(
      this.together(
        client,
        () =>
          [
            begin === undefined ? undefined : this.send(client, begin, []),
            this.send(client, text, values),
            last ? this.send(client, 'commit', []) : undefined,
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

  release(): void {
    if (!this.taken) return;
    this.taken.client.release();
    this.queue.give(this.taken.use);
    this.taken = undefined;
  }

  /**
   * The pooled connection. Statements sent without waiting for one another
   * (pipeline.ts) all wait for the one taking, and leave in the order they
   * were asked for.
   */
  private connect(use: Use): Promise<pg.PoolClient> {
    return (this.connection ??= this.take(use));
  }

  private async take(use: Use): Promise<pg.PoolClient> {
    await this.queue.take(use);
    try {
      const client = await this.pool.connect();
      this.taken = { client, use };
      return client;
    } catch (error) {
      this.queue.give(use);
      throw error;
    }
  }

  /** The connection a transaction's statements ran on; none when no statement could take one. */
  private async opened(): Promise<pg.PoolClient | undefined> {
    return this.connection?.catch(() => undefined);
  }

  private send(client: pg.PoolClient, text: string, values: readonly unknown[]): Sent {
    const name = this.names.nameOf(text);
    return name === undefined
      ? client.query(text, [...values])
      : client.query({ name, text, values: [...values] });
  }

  /** Sends the statements in one write to the socket (node-postgres writes each on its own). */
  private together<T>(client: pg.PoolClient, send: () => T): T {
    const stream = (client as { connection?: { stream?: Writable } }).connection?.stream;
    stream?.cork?.();
    try {
      return send();
    } finally {
      stream?.uncork?.();
    }
  }
}

/**
 * The pool as Kysely's PostgreSQL dialect takes it: at most `queue.size` of
 * `pool`'s connections in use at once, given out in the queue's order. `pool`
 * must be created with `pipeline: true` (db/connection.ts).
 */
export function pipelinedPool(
  pool: pg.Pool,
  queue: ConnectionQueue,
  names = new StatementNames(),
): PostgresPool {
  return {
    connect: async () => {
      const pipelined = new PipelinedClient(pool, queue, names);
      // Kysely passes a cursor only for streaming, which this dialect is not given.
      return {
        query: ((text: string, values: readonly unknown[]) =>
          pipelined.query(text, values)) as unknown as PostgresPoolClient['query'],
        release: () => pipelined.release(),
      };
    },
    end: () => pool.end(),
  };
}
