import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../lib/change-event.js';
import { accountIdOf, createTestApp, signUp, type TestApp } from '../test/harness.js';
import { Follower, scheduledFollower, type ChangeReader } from './follower.js';
import * as leases from './leases.repository.js';
import type { RowFailure } from './row-faults.js';

/**
 * The follower's leases and loop, on the duplicate finder's state table (its
 * own finder stopped): one holder per key, cursors that never go back, a
 * row's failure recorded and skipped, any other failure the run's.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.runtime.duplicates.finder.close();
});
afterAll(() => t.close());

const TABLE: leases.LeaseTable = {
  table: 'duplicate_state',
  key: 'account_id',
  cursor: 'applied_seq',
  touched: 'updated_at',
  clearOnRelease: ['working_space', 'working_ids'],
};
const db = () => t.database.db;

async function account(): Promise<string> {
  const { user } = await signUp(t.app);
  return accountIdOf(t, user.id);
}

const event = (accountId: string, seq: number): ChangeEvent => ({
  type: 'entity_created',
  payload: { entityId: randomUUID(), id: randomUUID(), name: `n${seq}`, type: 'x' },
  accountId,
  spaceId: accountId,
  space: 'default',
  seq,
  at: new Date().toISOString(),
});

describe('leases', () => {
  it('one holder per key until it releases or its lease lapses; a lapsed one is unclean', async () => {
    const accountId = await account();
    const [a, b] = [randomUUID(), randomUUID()];
    const first = await leases.claim(db(), TABLE, accountId, a, 60_000, { scan_seq: 3 });
    expect(first).toEqual({ cursor: 0, unclean: false });
    expect(await leases.claim(db(), TABLE, accountId, b, 60_000, { scan_seq: 3 })).toBeUndefined();
    expect(await leases.claim(db(), TABLE, accountId, a, 60_000)).toEqual(first);
    expect(await leases.advance(db(), TABLE, accountId, a, 5, 60_000)).toBe(true);
    expect(await leases.advance(db(), TABLE, accountId, a, 2, 60_000)).toBe(true);
    expect(await leases.advance(db(), TABLE, accountId, b, 9, 60_000)).toBe(false);
    await sql`update duplicate_state set lease_until = now() - interval '1 second', working_ids = array[${randomUUID()}]::uuid[]
               where account_id = ${accountId}`.execute(db());
    expect(await leases.claim(db(), TABLE, accountId, b, 60_000)).toEqual({
      cursor: 5,
      unclean: true,
    });
    expect(await leases.renew(db(), TABLE, accountId, a, 60_000)).toBe(false);
    await leases.release(db(), TABLE, accountId, b);
    const row = await sql<{ holder: string | null; working: string[] | null; scan: number }>`
      select lease_holder as holder, working_ids as working, scan_seq::int as scan
        from duplicate_state where account_id = ${accountId}
    `.execute(db());
    expect(row.rows).toEqual([{ holder: null, working: null, scan: 3 }]);
    expect(await leases.claim(db(), TABLE, accountId, a, 60_000)).toEqual({
      cursor: 5,
      unclean: false,
    });
    await leases.release(db(), TABLE, accountId, a);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'skips a key another node is claiming at that moment instead of waiting for it',
    async () => {
      const accountId = await account();
      await leases.claim(db(), TABLE, accountId, randomUUID(), 1, {});
      await sql`update duplicate_state set lease_until = null where account_id = ${accountId}`.execute(
        db(),
      );
      await db()
        .transaction()
        .execute(async (trx) => {
          await sql`select 1 from duplicate_state where account_id = ${accountId} for update`.execute(
            trx,
          );
          const started = Date.now();
          expect(await leases.claim(db(), TABLE, accountId, randomUUID(), 60_000)).toBeUndefined();
          expect(Date.now() - started).toBeLessThan(1_000);
        });
    },
  );
});

describe('the follow loop', () => {
  it('hands pages to handle, records and warns a row it skips, moves the cursor and releases', async () => {
    const accountId = await account();
    const log = [1, 2, 3, 4, 5].map((seq) => event(accountId, seq));
    const read: ChangeReader = async (_account, after, limit) => ({
      events: log.filter((e) => e.seq > after).slice(0, limit),
      resync: false,
    });
    const seen: number[][] = [];
    const recorded: RowFailure[] = [];
    const warned: { failure: RowFailure; message: string }[] = [];
    const follower = new Follower(
      {
        name: 'test worker',
        leases: TABLE,
        keysWithWork: async () => [{ key: accountId, accountId, eventSeq: 5 }],
        firstState: () => ({}),
        handle: async (batch) => {
          seen.push(batch.map((e) => e.seq));
          const bad = batch.find((e) => e.seq === 4);
          return bad
            ? {
                failures: [
                  {
                    worker: 'test worker',
                    spaceId: accountId,
                    entityId: 'e4',
                    reason: 'TypeError',
                  },
                ],
              }
            : {};
        },
        resync: async () => false,
        recordFailures: async (failures) => void recorded.push(...failures),
      },
      { db: db(), read, warn: (failure, message) => warned.push({ failure, message }) },
      { keysPerRun: 10, pageSize: 2, leaseMs: 60_000 },
    );
    const run = await follower.run();
    expect(run).toMatchObject({ keys: 1, more: false });
    expect(run.error).toBeUndefined();
    expect(seen).toEqual([[1, 2], [3, 4], [5]]);
    expect(recorded.map((f) => f.entityId)).toEqual(['e4']);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.message).not.toContain('n4');
    const state = await sql<{ applied: number; holder: string | null }>`
      select applied_seq::int as applied, lease_holder as holder from duplicate_state
       where account_id = ${accountId}
    `.execute(db());
    expect(state.rows).toEqual([{ applied: 5, holder: null }]);
  });

  it('a failure that is no row’s fails the run, keeps the cursor and releases the key', async () => {
    const accountId = await account();
    const follower = new Follower(
      {
        name: 'test worker',
        leases: TABLE,
        keysWithWork: async () => [{ key: accountId, accountId, eventSeq: 1 }],
        firstState: () => ({}),
        handle: async () => {
          throw new Error('the service is away');
        },
        resync: async () => false,
      },
      {
        db: db(),
        read: async () => ({ events: [event(accountId, 1)], resync: false }),
      },
      { keysPerRun: 10, pageSize: 10, leaseMs: 60_000 },
    );
    const run = await follower.run();
    expect((run.error as Error).message).toBe('the service is away');
    const state = await sql<{ applied: number; holder: string | null }>`
      select applied_seq::int as applied, lease_holder as holder from duplicate_state
       where account_id = ${accountId}
    `.execute(db());
    expect(state.rows).toEqual([{ applied: 0, holder: null }]);
  });

  it('makes a scheduled worker of a handle alone: drain runs it until nothing is left', async () => {
    const accountId = await account();
    const log = [1, 2, 3].map((seq) => event(accountId, seq));
    const handled: number[] = [];
    const errors: unknown[] = [];
    const { scheduler } = scheduledFollower(
      {
        name: 'test sweep',
        leases: TABLE,
        keysWithWork: async () => {
          const state = await sql<{ applied: number }>`
            select applied_seq::int as applied from duplicate_state where account_id = ${accountId}
          `.execute(db());
          return (state.rows[0]?.applied ?? 0) < 3
            ? [{ key: accountId, accountId, eventSeq: 3 }]
            : [];
        },
        firstState: () => ({}),
        handle: async (batch) => void handled.push(...batch.map((e) => e.seq)),
        resync: async () => false,
      },
      {
        db: db(),
        read: async (_account, after, limit) => ({
          events: log.filter((e) => e.seq > after).slice(0, limit),
          resync: false,
        }),
      },
      { keysPerRun: 10, pageSize: 2, leaseMs: 60_000 },
      { pollMs: 60_000 },
      (error) => errors.push(error),
    );
    await scheduler.drain();
    await scheduler.close();
    expect(handled).toEqual([1, 2, 3]);
    expect(errors).toEqual([]);
  });
});
