import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/harness.js';
import { ConnectionQueue, type Use } from './connection-queue.js';
import { QUERY_CANCELED } from './deadline.js';

/** Takes a connection for `use`, noting in `order` when it got one. */
function taking(queue: ConnectionQueue, use: Use, name: string, order: string[]) {
  return queue.take(use).then(() => {
    order.push(name);
  });
}

describe('the connection queue', () => {
  it('gives connections out at once up to its size, then in turn as they come back', async () => {
    const queue = new ConnectionQueue(2, undefined);
    const order: string[] = [];
    await taking(queue, 'statement', 'a', order);
    await taking(queue, 'statement', 'b', order);
    const c = taking(queue, 'statement', 'c', order);
    const d = taking(queue, 'statement', 'd', order);
    await Promise.resolve();
    expect(order).toEqual(['a', 'b']);
    queue.give('statement');
    await c;
    expect(order).toEqual(['a', 'b', 'c']);
    queue.give('statement');
    await d;
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lets a waiting transaction go before the statements that waited longer', async () => {
    const queue = new ConnectionQueue(3, undefined);
    const order: string[] = [];
    for (const name of ['r1', 'r2', 'r3']) await taking(queue, 'statement', name, order);
    const waiting = [
      taking(queue, 'statement', 'r4', order),
      taking(queue, 'statement', 'r5', order),
      taking(queue, 'transaction', 'w1', order),
      taking(queue, 'transaction', 'w2', order),
    ];
    queue.give('statement');
    queue.give('statement');
    queue.give('statement');
    await Promise.all(waiting.slice(2));
    await Promise.resolve();
    // w1 and w2 first; the third connection goes to r4, since transactions
    // never hold the last one while a statement waits.
    expect(order.slice(3)).toEqual(['w1', 'w2', 'r4']);
    queue.give('transaction');
    await Promise.all(waiting);
    expect(order.slice(3)).toEqual(['w1', 'w2', 'r4', 'r5']);
  });

  it('keeps one connection for statements however many transactions wait', async () => {
    const queue = new ConnectionQueue(2, undefined);
    const order: string[] = [];
    await taking(queue, 'transaction', 'w1', order);
    await taking(queue, 'statement', 'r1', order);
    const w2 = taking(queue, 'transaction', 'w2', order);
    const r2 = taking(queue, 'statement', 'r2', order);
    const w3 = taking(queue, 'transaction', 'w3', order);
    // The statement's connection comes back while w1 still holds the other: r2 takes it.
    queue.give('statement');
    await r2;
    expect(order).toEqual(['w1', 'r1', 'r2']);
    queue.give('transaction');
    await w2;
    queue.give('statement');
    await w3;
    expect(order).toEqual(['w1', 'r1', 'r2', 'w2', 'w3']);
  });

  it('fails a wait past its limit as a statement timeout, and forgets the waiter', async () => {
    const queue = new ConnectionQueue(1, 20);
    const order: string[] = [];
    await taking(queue, 'statement', 'a', order);
    await expect(queue.take('transaction')).rejects.toMatchObject({
      code: QUERY_CANCELED,
      message: 'waited over 20 ms for a database connection',
    });
    const b = taking(queue, 'statement', 'b', order);
    queue.give('statement');
    await b;
    expect(order).toEqual(['a', 'b']);
  });
});

// The pool of PostgreSQL (pg-pool.ts); PGlite's one connection has its own
// order (pglite-dialect.ts: a waiting transaction holds back later statements).
describe.skipIf(!process.env.TEST_DATABASE_URL)('the PostgreSQL pool', { timeout: 60_000 }, () => {
  it('runs a transaction that waited for a connection before the reads that waited longer', async () => {
    const database = await createTestDatabase(5_000);
    const { db } = database;
    try {
      await sql`create table marks (mark text not null, at timestamptz not null)`.execute(db);
      // Every connection busy (the default pool: 5), each freed 200 ms after the one before.
      const busy = Array.from({ length: 5 }, (_, index) =>
        sql`select pg_sleep(${0.2 * (index + 1)})`.execute(db),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const reads = Array.from({ length: 4 }, () =>
        sql<{ at: Date }>`select clock_timestamp() as at`.execute(db),
      );
      const write = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{
          at: Date;
        }>`insert into marks values ('write', clock_timestamp()) returning at`.execute(trx);
        return rows[0]!.at;
      });
      await Promise.all(busy);
      const wrote = await write;
      const read = (await Promise.all(reads)).map((result) => result.rows[0]!.at);
      // In the order they came, the reads would have taken the first four connections freed.
      expect(read.every((at) => at > wrote)).toBe(true);
    } finally {
      await database.close();
    }
  });
});
