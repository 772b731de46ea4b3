import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DuplicateList } from '@engram/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateFinder } from '../features/duplicates/duplicate-finder.js';
import type { RowFailure } from '../follower/row-faults.js';
import { accountIdOf, as, createTestApp, setPlan, signUp, type TestApp } from '../test/harness.js';

/**
 * The duplicate finder against rows it cannot compare as it would like:
 * names far longer than the write doors take, stored before their limits,
 * and rows of a shape it cannot read. It must pass them in bounded time and
 * memory while the server answers, record and skip a row that fails, and
 * never stop on one again after a restart.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // Each test runs the finder itself.
  await t.runtime.duplicates.finder.stop();
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function account() {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, 'team');
  return { call: as(t.app, token), accountId: await accountIdOf(t, user.id) };
}

async function create(call: Call, name: string, type = 'person'): Promise<string> {
  const response = await call({ method: 'POST', url: '/api/entities', payload: { name, type } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

async function pairs(call: Call): Promise<string[]> {
  const response = await call({ method: 'GET', url: '/api/duplicates?limit=100' });
  expect(response.statusCode, response.body).toBe(200);
  return response
    .json<DuplicateList>()
    .candidates.map((candidate) =>
      candidate.entities
        .map((entity) => entity.name)
        .sort()
        .join(' | '),
    )
    .sort();
}

/** Random letters (repeated, they compress: the entities' own indexes take such a long name). */
function letters(length: number, seed: number): string {
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += String.fromCharCode(97 + (state % 26));
  }
  return text;
}

/** A finder of its own, as after a restart (another holder), its warnings kept. */
function finderWithLog(options: { chunk?: number } = {}) {
  const warnings: { failure: RowFailure; message: string }[] = [];
  const finder = new DuplicateFinder(
    { db: t.database.db, warn: (failure, message) => warnings.push({ failure, message }) },
    options,
  );
  return { finder, warnings };
}

const db = () => t.database.db;

describe('the duplicate finder and over-long names', () => {
  it('passes two 30,003-character names sharing a blocking key in bounded time and memory, answering meanwhile', async () => {
    const { call, accountId } = await account();
    const one = await create(call, 'Long One', 'thing');
    const two = await create(call, 'Long Two', 'thing');
    const words = await create(call, 'Long Words One', 'thing');
    const words2 = await create(call, 'Long Words Two', 'thing');
    await create(call, 'Ada Lovelace');
    await create(call, 'ada lovelace');
    // Stored as before the write doors' limits: equal lengths, the same first half
    // (a blocking key) and more, then other letters; and two of five thousand words.
    const body = letters(100, 1).repeat(300);
    const long = [body + letters(3, 2), body + letters(3, 3)];
    const manyWords = (seed: number) =>
      Array.from({ length: 20 }, (_, i) => letters(5, seed + i))
        .join(' ')
        .concat(' ')
        .repeat(300)
        .slice(0, 30_003);
    await sql`update entities set name = ${long[0]} where id = ${one}`.execute(db());
    await sql`update entities set name = ${long[1]} where id = ${two}`.execute(db());
    await sql`update entities set name = ${manyWords(10)} where id = ${words}`.execute(db());
    await sql`update entities set name = ${manyWords(10).slice(0, -3) + 'xyz'} where id = ${words2}`.execute(
      db(),
    );
    expect(long[0]).toHaveLength(30_003);
    // No position: the finder scans the account, every entity.
    await sql`delete from duplicate_state where account_id = ${accountId}`.execute(db());

    const { finder, warnings } = finderWithLog();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }, 20);
    delay.enable();
    const started = performance.now();
    try {
      const drained = finder.drain();
      const asked = performance.now();
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      const answeredIn = performance.now() - asked;
      await drained;
      expect(health.statusCode).toBe(200);
      expect(answeredIn).toBeLessThan(2_000);
    } finally {
      delay.disable();
      clearInterval(sampler);
      await finder.close();
    }
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(delay.max / 1e6).toBeLessThan(1_000);
    expect(heapPeak - heapBefore).toBeLessThan(256 * 1024 ** 2);
    expect(warnings).toEqual([]);
    // Other pairs are still found; names that differ past what is read are not a pair.
    expect(await pairs(call)).toEqual(['Ada Lovelace | ada lovelace']);

    // A create's likely duplicates read those rows too, and answer at once.
    const asked = performance.now();
    const created = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: long[0]!.slice(0, 500), type: 'thing' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(performance.now() - asked).toBeLessThan(2_000);
    // Its key is the long name's (the first 500 characters), but the names differ: no hint.
    expect(created.json<{ possibleDuplicates: unknown[] }>().possibleDuplicates).toEqual([]);
  }, 60_000);
});

describe('the duplicate finder and a row it cannot compare', () => {
  it('records it, warns with its id, skips it, and goes on after a restart without looping', async () => {
    const { call, accountId } = await account();
    const broken = await create(call, 'Broken Row', 'thing');
    await create(call, 'Grace Hopper');
    await create(call, 'grace hopper');
    // An alias the write path never stores: a row the comparison cannot read.
    await sql`update entities set aliases = array[null]::text[] where id = ${broken}`.execute(db());

    const first = finderWithLog();
    try {
      await first.finder.drain();
    } finally {
      await first.finder.close();
    }
    expect(first.warnings).toEqual([
      {
        failure: {
          worker: 'duplicate finder',
          spaceId: accountId,
          entityId: broken,
          reason: 'TypeError',
        },
        message: expect.not.stringContaining('Broken'),
      },
    ]);
    const recorded = await sql<{ entity_id: string; reason: string }>`
      select entity_id, reason from duplicate_failures where space_id = ${accountId}
    `.execute(db());
    expect(recorded.rows).toEqual([{ entity_id: broken, reason: 'TypeError' }]);
    expect(await pairs(call)).toEqual(['Grace Hopper | grace hopper']);

    // A restart from the start of the log, and one with no position (a scan): skipped, not retried.
    for (const reset of [
      sql`update duplicate_state set applied_seq = 0 where account_id = ${accountId}`,
      sql`delete from duplicate_state where account_id = ${accountId}`,
    ]) {
      await reset.execute(db());
      const again = finderWithLog();
      try {
        await again.finder.drain();
      } finally {
        await again.finder.close();
      }
      expect(again.warnings).toEqual([]);
    }
    await create(call, 'Katherine Johnson');
    await create(call, 'katherine johnson');
    const later = finderWithLog();
    try {
      await later.finder.drain();
    } finally {
      await later.finder.close();
    }
    expect(later.warnings).toEqual([]);
    expect(await pairs(call)).toEqual([
      'Grace Hopper | grace hopper',
      'Katherine Johnson | katherine johnson',
    ]);

    // Renamed (its aliases written anew), it is compared again and its record goes.
    const renamed = await call({
      method: 'PUT',
      url: `/api/entities/${broken}`,
      payload: { name: 'Mended Row', type: 'thing', aliases: [] },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await create(call, 'mended row', 'thing');
    const mended = finderWithLog();
    try {
      await mended.finder.drain();
    } finally {
      await mended.finder.close();
    }
    expect(mended.warnings).toEqual([]);
    const left = await sql`select 1 from duplicate_failures where space_id = ${accountId}`.execute(
      db(),
    );
    expect(left.rows).toEqual([]);
    expect(await pairs(call)).toContain('Mended Row | mended row');
  });

  it('skips an entity a process stopped on while comparing it alone, and goes on', async () => {
    const { call, accountId } = await account();
    const victim = await create(call, 'Poison Row', 'thing');
    await create(call, 'Mary Somerville');
    await create(call, 'mary somerville');
    // As a process leaves it when it dies comparing one entity after an earlier stop:
    // its lease unreleased (and run out), the entity noted.
    await sql`
      insert into duplicate_state (account_id, applied_seq, lease_holder, lease_until, working_space, working_ids)
      values (${accountId}, 0, ${randomUUID()}, now() - interval '1 second', ${accountId},
              array[${victim}]::uuid[])
    `.execute(db());

    const next = finderWithLog();
    try {
      await next.finder.drain();
    } finally {
      await next.finder.close();
    }
    expect(next.warnings).toEqual([
      {
        failure: {
          worker: 'duplicate finder',
          spaceId: accountId,
          entityId: victim,
          reason: 'the process stopped while comparing it',
        },
        message: expect.any(String),
      },
    ]);
    expect(await pairs(call)).toEqual(['Mary Somerville | mary somerville']);
    const state = await sql<{ working_ids: string[] | null; lease_holder: string | null }>`
      select working_ids, lease_holder from duplicate_state where account_id = ${accountId}
    `.execute(db());
    expect(state.rows).toEqual([{ working_ids: null, lease_holder: null }]);

    // A stop with nothing noted (the first one): each entity compared alone, none blamed.
    await sql`
      update duplicate_state set applied_seq = 0, lease_holder = ${randomUUID()},
             lease_until = now() - interval '1 second'
       where account_id = ${accountId}
    `.execute(db());
    const careful = finderWithLog({ chunk: 100 });
    try {
      await careful.finder.drain();
    } finally {
      await careful.finder.close();
    }
    expect(careful.warnings).toEqual([]);
    const failures = await sql<{ entity_id: string }>`
      select entity_id from duplicate_failures where space_id = ${accountId}
    `.execute(db());
    expect(failures.rows).toEqual([{ entity_id: victim }]);
    expect(await pairs(call)).toEqual(['Mary Somerville | mary somerville']);
  });
});
