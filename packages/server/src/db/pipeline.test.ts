import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/harness.js';
import type { DatabaseHandle, Db } from './connection.js';
import { sendAhead, thenCommit } from './pipeline.js';

// On the embedded database, and on PostgreSQL when TEST_DATABASE_URL is set
// (its pool in pipeline mode, pg-pool.ts).
describe('transactions in fewer round trips', { timeout: 60_000 }, () => {
  let database: DatabaseHandle;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase(1_000);
    db = database.db;
    await sql`create table notes (note text not null)`.execute(db);
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    await sql`delete from notes`.execute(db);
  });

  const notes = async () =>
    (await sql<{ note: string }>`select note from notes order by note`.execute(db)).rows.map(
      (row) => row.note,
    );
  const xact = sql<{ id: string }>`select pg_current_xact_id()::text as id`;
  const idOf = async (on: Db) => (await xact.execute(on)).rows[0]!.id;

  it('open with their first statement, and end cleanly with none', async () => {
    const [first, last] = await db.transaction().execute(async (trx) => {
      const opened = await idOf(trx);
      await sql`insert into notes values ('kept')`.execute(trx);
      return [opened, await idOf(trx)];
    });
    expect(first).toBe(last);
    await db.transaction().execute(async () => undefined);
    await expect(
      db.transaction().execute(async () => {
        throw new Error('given up before writing');
      }),
    ).rejects.toThrow('given up before writing');
    expect(await notes()).toEqual(['kept']);
    // Not left inside a transaction: each statement is its own again.
    expect(await idOf(db)).not.toBe(await idOf(db));
  });

  it('run a statement sent ahead before the next one, and surface its answer or its error', async () => {
    const seen = await db.transaction().execute(async (trx) => {
      const ahead = await sendAhead(
        trx,
        sql<{ note: string }>`insert into notes values ('ahead') returning note`,
      );
      const behind = await sql<{ n: number }>`select count(*)::int as n from notes`.execute(trx);
      return { ahead: await ahead.rows, behind: behind.rows };
    });
    expect(seen).toEqual({ ahead: [{ note: 'ahead' }], behind: [{ n: 1 }] });

    let behindFailed: unknown;
    await expect(
      db.transaction().execute(async (trx) => {
        const ahead = await sendAhead(trx, sql`insert into notes values (null)`);
        // Already on its way behind the failing statement: the aborted transaction refuses it.
        behindFailed = await sql`insert into notes values ('behind')`
          .execute(trx)
          .catch((error) => error);
        await ahead.rows;
      }),
    ).rejects.toThrow(/null value/);
    expect(behindFailed).toMatchObject({ code: '25P02' });
    expect(await notes()).toEqual(['ahead']);
  });

  it('commit with a last statement, and roll back whole when it fails', async () => {
    await db.transaction().execute(async (trx) => {
      await sql`insert into notes values ('first')`.execute(trx);
      await sql`${thenCommit} insert into notes values ('last')`.execute(trx);
    });
    expect(await notes()).toEqual(['first', 'last']);

    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into notes values ('undone')`.execute(trx);
        await sql`${thenCommit} insert into notes values (null)`.execute(trx);
      }),
    ).rejects.toThrow(/null value/);
    // Alone in its transaction, too.
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`${thenCommit} insert into notes values (null)`.execute(trx);
      }),
    ).rejects.toThrow(/null value/);
    expect(await notes()).toEqual(['first', 'last']);

    // Committed with it: nothing after it can undo it.
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`${thenCommit} insert into notes values ('committed')`.execute(trx);
        throw new Error('too late');
      }),
    ).rejects.toThrow('too late');
    expect(await notes()).toEqual(['committed', 'first', 'last']);
    expect(await idOf(db)).not.toBe(await idOf(db));
  });

  it('send a whole transaction before reading any answer: it commits, or a failure anywhere rolls it back', async () => {
    // The lock, the call's statement and the append with COMMIT, all sent ahead (decision 034).
    const whole = (middle: string) =>
      db.transaction().execute(async (trx) => {
        const first = await sendAhead(trx, sql`insert into notes values ('lock')`);
        const second = await sendAhead(trx, sql`insert into notes values (${middle || null})`);
        const last = await sendAhead(trx, sql`${thenCommit} insert into notes values ('append')`);
        await Promise.all([first.rows, second.rows, last.rows]);
      });
    await expect(whole('')).rejects.toThrow(/null value/);
    expect(await notes()).toEqual([]);
    await whole('statement');
    expect(await notes()).toEqual(['append', 'lock', 'statement']);
    expect(await idOf(db)).not.toBe(await idOf(db));
  });
  it('refuse a last statement once the transaction has run past its deadline', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into notes values ('slow')`.execute(trx);
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        await sql`${thenCommit} insert into notes values ('late')`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '57014' });
    expect(await notes()).toEqual([]);
  });
});
