import type { Entity, EntityAuthors, HistoryPage } from '@engram/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import type { Requester } from '../../test/graph-fixtures.js';

// Issue 40, audit: every write carries the person behind its credential in
// the change log, history names them, and GET /api/entities/{id}/authors says
// who created an entity and who last changed it (docs/history.md).

const clock = manualClock(new Date('2026-12-01T12:00:00Z'));
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
});
afterAll(async () => {
  await t?.close();
});

async function account(fields: Record<string, string> = {}) {
  const { token, user } = await signUp(t.app, fields);
  const rest = as(t.app, token);
  const created = await rest({ method: 'POST', url: '/api/keys', payload: { name: 'ci-agent' } });
  expect(created.statusCode, created.body).toBe(201);
  const agent = as(t.app, created.json<{ apiKey: string }>().apiKey);
  return { rest, agent, userId: user.id };
}

async function ok<T>(rest: Requester, method: string, url: string, payload?: object): Promise<T> {
  const response = await rest({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json<T>();
}

const authorsOf = (rest: Requester, id: string) =>
  ok<EntityAuthors>(rest, 'GET', `/api/entities/${id}/authors`);

/** Rewrites the actor the change log kept for every call of the account (old rows, people gone). */
async function rewriteActors(accountId: string, expression: string) {
  await sql`update graph_calls set actor = ${sql.raw(expression)} where account_id = ${accountId}`.execute(
    t.database.db,
  );
}

describe('the person behind a write', () => {
  it("records a key's creator in the change log and history names them beside the key", async () => {
    const { agent, rest, userId } = await account();
    const entity = await ok<Entity>(agent, 'POST', '/api/entities', {
      name: 'Pipeline',
      type: 'project',
    });
    const accountId = await accountIdOf(t, userId);
    const logged = await t.database.db
      .selectFrom('graph_events')
      .select(['actor'])
      .where('account_id', '=', accountId)
      .execute();
    expect(logged).toEqual([{ actor: { kind: 'api_key', id: expect.any(String), userId } }]);
    const call = await t.database.db
      .selectFrom('graph_calls')
      .select(['actor'])
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(call.actor).toMatchObject({ kind: 'api_key', userId });

    const history = await ok<HistoryPage>(rest, 'GET', `/api/entities/${entity.id}/history`);
    expect(history.changes[0]!.actor).toEqual({
      kind: 'api_key',
      id: expect.any(String),
      name: 'ci-agent',
      user: { id: userId, name: 'Ada Lovelace' },
    });
    const changes = await ok<HistoryPage>(rest, 'GET', '/api/changes');
    expect(changes.changes[0]!.actor!.user).toEqual({ id: userId, name: 'Ada Lovelace' });

    // A session's own change names its person too.
    await ok(rest, 'PUT', `/api/entities/${entity.id}`, { name: 'Pipeline 2', type: 'project' });
    const latest = await ok<HistoryPage>(rest, 'GET', '/api/changes?limit=1');
    expect(latest.changes[0]!.actor).toEqual({
      kind: 'user',
      id: userId,
      name: 'Ada Lovelace',
      user: { id: userId, name: 'Ada Lovelace' },
    });
  });

  it('reads rows written before the person was recorded, and people who are gone, as null', async () => {
    const { agent, rest, userId } = await account({ firstName: 'Grace', lastName: 'Hopper' });
    const accountId = await accountIdOf(t, userId);
    const byKey = await ok<Entity>(agent, 'POST', '/api/entities', { name: 'Old', type: 'x' });
    const bySession = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Mine', type: 'x' });
    await rewriteActors(accountId, `actor - 'userId'`);

    const keyHistory = await ok<HistoryPage>(rest, 'GET', `/api/entities/${byKey.id}/history`);
    expect(keyHistory.changes[0]!.actor).toMatchObject({ kind: 'api_key', name: 'ci-agent' });
    expect(keyHistory.changes[0]!.actor!.user).toBeNull();
    expect(await authorsOf(rest, byKey.id)).toMatchObject({ createdBy: null, updatedBy: null });
    expect((await authorsOf(rest, byKey.id)).createdAt).toBe(clock.now().toISOString());
    // A session's change always named its person: its actor is the user.
    expect((await authorsOf(rest, bySession.id)).createdBy).toEqual({
      id: userId,
      name: 'Grace Hopper',
    });

    // A person no longer there: the change is kept, its person unknown.
    await rewriteActors(
      accountId,
      `jsonb_build_object('kind', 'api_key', 'id', actor->>'id', 'userId', gen_random_uuid()::text)`,
    );
    const gone = await authorsOf(rest, bySession.id);
    expect(gone).toEqual({
      createdBy: null,
      createdAt: clock.now().toISOString(),
      updatedBy: null,
      updatedAt: clock.now().toISOString(),
    });
  });

  it('names a person without a name by their email', async () => {
    const { rest, userId } = await account();
    await t.database.db
      .updateTable('users')
      .set({ first_name: '', last_name: '' })
      .where('id', '=', userId)
      .execute();
    const entity = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Nameless', type: 'x' });
    const { email } = await t.database.db
      .selectFrom('users')
      .select(['email'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect((await authorsOf(rest, entity.id)).createdBy).toEqual({ id: userId, name: email });
  });
});

describe('GET /api/entities/{id}/authors', () => {
  it('says a key made by a person created the entity, and who changed it last and when', async () => {
    const { agent, rest, userId } = await account();
    const createdAt = clock.now().toISOString();
    const entity = await ok<Entity>(agent, 'POST', '/api/entities', {
      name: 'Ada',
      type: 'person',
      observations: ['mathematician'],
    });
    const ada = { id: userId, name: 'Ada Lovelace' };
    expect(await authorsOf(rest, entity.id)).toEqual({
      createdBy: ada,
      createdAt,
      updatedBy: ada,
      updatedAt: createdAt,
    });

    // An observation, then a relation at its far end: each is a change of it.
    clock.advanceMs(60_000);
    await ok(rest, 'POST', `/api/entities/${entity.id}/observations`, { observations: ['poet'] });
    const observed = clock.now().toISOString();
    expect(await authorsOf(agent, entity.id)).toMatchObject({ createdAt, updatedAt: observed });
    clock.advanceMs(60_000);
    const other = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Bob', type: 'person' });
    clock.advanceMs(60_000);
    await ok(agent, 'POST', '/api/relations', {
      fromEntityId: other.id,
      toEntityId: entity.id,
      type: 'knows',
    });
    expect(await authorsOf(rest, entity.id)).toEqual({
      createdBy: ada,
      createdAt,
      updatedBy: ada,
      updatedAt: clock.now().toISOString(),
    });
    // Another entity's change is not this one's.
    expect((await authorsOf(rest, other.id)).createdAt).not.toBe(createdAt);
  });

  it('answers 404 like the entity read: missing, malformed, another account, another space', async () => {
    const { rest, userId } = await account();
    await setPlan(t, userId, 'pro');
    const mine = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Mine', type: 'x' });
    const stranger = await account();
    for (const url of [
      `/api/entities/${mine.id}/authors`,
      '/api/entities/00000000-0000-4000-8000-000000000000/authors',
      '/api/entities/not-an-id/authors',
    ]) {
      const response = await stranger.rest({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', error: 'Entity not found' });
      const read = await stranger.rest({ method: 'GET', url: url.replace(/\/authors$/, '') });
      expect(read.statusCode).toBe(404);
      expect(read.json().error).toBe(response.json().error);
    }

    await ok(rest, 'POST', '/api/spaces', { slug: 'work', name: 'Work' });
    const work = (options: Parameters<Requester>[0]) =>
      rest({ ...options, headers: { ...options.headers, 'x-engram-space': 'work' } });
    const there = await ok<Entity>(work, 'POST', '/api/entities', { name: 'There', type: 'x' });
    expect((await authorsOf(work, there.id)).createdBy).toEqual({
      id: userId,
      name: 'Ada Lovelace',
    });
    const elsewhere = await rest({ method: 'GET', url: `/api/entities/${there.id}/authors` });
    expect(elsewhere.statusCode).toBe(404);
    expect(
      (await work({ method: 'GET', url: `/api/entities/${mine.id}/authors` })).statusCode,
    ).toBe(404);
    // A deleted entity is gone, as for its read (its history is still listed).
    await ok(rest, 'DELETE', `/api/entities/${mine.id}`);
    expect(
      (await rest({ method: 'GET', url: `/api/entities/${mine.id}/authors` })).statusCode,
    ).toBe(404);
  });

  it('is null where history no longer holds the change (compacted after the window)', async () => {
    const { rest, userId } = await account();
    const old = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Old', type: 'x' });
    clock.advanceDays(8);
    await ok(rest, 'POST', '/api/entities', { name: 'New', type: 'x' });
    await t.runtime.history.changeLog.runOnce();
    expect(await authorsOf(rest, old.id)).toEqual({
      createdBy: null,
      createdAt: null,
      updatedBy: null,
      updatedAt: null,
    });
    // A change within the window is known again; the creation stays unknown.
    await ok(rest, 'PUT', `/api/entities/${old.id}`, { name: 'Old but changed', type: 'x' });
    expect(await authorsOf(rest, old.id)).toEqual({
      createdBy: null,
      createdAt: null,
      updatedBy: { id: userId, name: 'Ada Lovelace' },
      updatedAt: clock.now().toISOString(),
    });
  });

  it('counts as a query operation on entities', async () => {
    const { rest, userId } = await account();
    const accountId = await accountIdOf(t, userId);
    const entity = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Counted', type: 'x' });
    const queries = async () => {
      await t.runtime.usage.flush();
      const rows = await t.database.db
        .selectFrom('usage_daily')
        .select(['count'])
        .where('account_id', '=', accountId)
        .where('operation_type', '=', 'query')
        .where('resource_type', '=', 'entity')
        .execute();
      return rows.reduce((sum, row) => sum + Number(row.count), 0);
    };
    const before = await queries();
    await authorsOf(rest, entity.id);
    await authorsOf(rest, entity.id);
    expect(await queries()).toBe(before + 2);
  });
});
