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
    await taking(queue, 'read', 'a', order);
    await taking(queue, 'read', 'b', order);
    const c = taking(queue, 'read', 'c', order);
    const d = taking(queue, 'read', 'd', order);
    await Promise.resolve();
    expect(order).toEqual(['a', 'b']);
    queue.give('read');
    await c;
    expect(order).toEqual(['a', 'b', 'c']);
    queue.give('read');
    await d;
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lets a waiting write go before the reads that waited longer', async () => {
    const queue = new ConnectionQueue(3, undefined);
    const order: string[] = [];
    for (const name of ['r1', 'r2', 'r3']) await taking(queue, 'read', name, order);
    const waiting = [
      taking(queue, 'read', 'r4', order),
      taking(queue, 'read', 'r5', order),
      taking(queue, 'write', 'w1', order),
      taking(queue, 'write', 'w2', order),
    ];
    queue.give('read');
    queue.give('read');
    queue.give('read');
    await Promise.all(waiting.slice(2));
    await Promise.resolve();
    // w1 and w2 first; the third connection goes to r4, since writes never
    // hold the last one while a read waits.
    expect(order.slice(3)).toEqual(['w1', 'w2', 'r4']);
    queue.give('write');
    await Promise.all(waiting);
    expect(order.slice(3)).toEqual(['w1', 'w2', 'r4', 'r5']);
  });

  it('keeps one connection for reads however many writes wait', async () => {
    const queue = new ConnectionQueue(2, undefined);
    const order: string[] = [];
    await taking(queue, 'write', 'w1', order);
    await taking(queue, 'read', 'r1', order);
    const w2 = taking(queue, 'write', 'w2', order);
    const r2 = taking(queue, 'read', 'r2', order);
    const w3 = taking(queue, 'write', 'w3', order);
    // The read's connection comes back while w1 still holds the other: r2 takes it.
    queue.give('read');
    await r2;
    expect(order).toEqual(['w1', 'r1', 'r2']);
    queue.give('write');
    await w2;
    queue.give('read');
    await w3;
    expect(order).toEqual(['w1', 'r1', 'r2', 'w2', 'w3']);
  });

  it('fails a wait past its limit as a statement timeout, and forgets the waiter', async () => {
    const queue = new ConnectionQueue(1, 20);
    const order: string[] = [];
    await taking(queue, 'read', 'a', order);
    await expect(queue.take('write')).rejects.toMatchObject({
      code: QUERY_CANCELED,
      message: 'waited over 20 ms for a database connection',
    });
    const b = taking(queue, 'read', 'b', order);
    queue.give('read');
    await b;
    expect(order).toEqual(['a', 'b']);
  });
});

// The pool of PostgreSQL (pg-pool.ts); PGlite's one connection has its own
// order (pglite-dialect.ts: a waiting transaction holds back later statements).
describe.skipIf(!process.env.TEST_DATABASE_URL)('the PostgreSQL pool', { timeout: 60_000 }, () => {
  it('runs the writes that waited for a connection before the reads that waited longer', async () => {
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
      const inTransaction = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{
          at: Date;
        }>`insert into marks values ('transaction', clock_timestamp()) returning at`.execute(trx);
        return rows[0]!.at;
      });
      const alone = sql<{ at: Date }>`
        insert into marks values ('statement', clock_timestamp()) returning at
      `.execute(db);
      await Promise.all(busy);
      const wrote = [await inTransaction, (await alone).rows[0]!.at];
      const read = (await Promise.all(reads)).map((result) => result.rows[0]!.at);
      // In the order they came, the reads would have taken the first four connections freed.
      expect(read.every((at) => wrote.every((written) => at > written))).toBe(true);
    } finally {
      await database.close();
    }
  });
});
