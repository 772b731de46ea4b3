import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import { KeyUsageTracker } from './key-usage.js';

const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
});
afterAll(() => t.close());

function bearer(key: string) {
  return { authorization: `Bearer ${key}` };
}

describe('API keys', () => {
  it('creates a key shown once, lists it masked, and lets it read the graph', async () => {
    const { token } = await signUp(t.app, { firstName: 'Grace', lastName: 'Hopper' });
    const call = as(t.app, token);
    await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Cobol', type: 'technology' },
    });

    const created = await call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'CI agent', permissions: [] },
    });
    expect(created.statusCode).toBe(201);
    const key = created.json<{ id: string; apiKey: string; keyPreview: string }>();
    expect(key.apiKey).toMatch(/^eng_key_[A-Za-z0-9_-]{43}$/);
    expect(key.keyPreview).toBe(`${key.apiKey.slice(0, 6)}…${key.apiKey.slice(-4)}`);

    const viaKey = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: bearer(key.apiKey),
    });
    expect(viaKey.statusCode).toBe(200);
    expect(viaKey.json().entities.map((e: { name: string }) => e.name)).toEqual(['Cobol']);
    const viaHeader = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { 'x-api-key': key.apiKey },
    });
    expect(viaHeader.statusCode).toBe(200);

    const list = await call({ method: 'GET', url: '/api/keys' });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key.apiKey);
    const [listed] = list.json().apiKeys;
    expect(listed).toMatchObject({
      id: key.id,
      name: 'CI agent',
      keyPreview: key.keyPreview,
      permissions: [],
      expiresAt: null,
      isExpired: false,
      isExpiringSoon: false,
      createdBy: { name: 'Grace Hopper' },
      usage: { totalRequests: 2, activeDays: 1 },
    });
    expect(listed).toMatchObject({ replacedById: null, replacesId: null });
    expect(listed.lastUsedAt).toBe(clock.now().toISOString());
    expect(listed).not.toHaveProperty('apiKey');
  });

  it('rejects blank names and enforces the plan limit', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const blank = await call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: '   ', permissions: [] },
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().details[0].field).toBe('body.name');

    expect(
      (await call({ method: 'POST', url: '/api/keys', payload: { name: 'one' } })).statusCode,
    ).toBe(201);
    const second = await call({ method: 'POST', url: '/api/keys', payload: { name: 'two' } });
    expect(second.statusCode).toBe(402);
    expect(second.json()).toMatchObject({ code: 'PLAN_LIMIT_REACHED' });
    expect(second.json().error).toContain('Free plan allows 1 API key');

    await setPlan(t, user.id, 'starter');
    expect(
      (await call({ method: 'POST', url: '/api/keys', payload: { name: 'two' } })).statusCode,
    ).toBe(201);
    expect(
      (await call({ method: 'POST', url: '/api/keys', payload: { name: 'three' } })).statusCode,
    ).toBe(201);
    expect(
      (await call({ method: 'POST', url: '/api/keys', payload: { name: 'four' } })).statusCode,
    ).toBe(402);
  });

  it('rolls a key: the new one works at once, the old one for 14 days', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    const old = (
      await call({ method: 'POST', url: '/api/keys', payload: { name: 'roll me' } })
    ).json();
    const rolled = await call({ method: 'POST', url: `/api/keys/${old.id}/roll` });
    expect(rolled.statusCode).toBe(200);
    const { newKey, oldKey } = rolled.json();
    expect(newKey.apiKey).not.toBe(old.apiKey);
    expect(oldKey.id).toBe(old.id);

    const read = (key: string) =>
      t.app.inject({ method: 'GET', url: '/api/entities', headers: bearer(key) });
    expect((await read(newKey.apiKey)).statusCode).toBe(200);
    expect((await read(old.apiKey)).statusCode).toBe(200);

    // The list tells the two cards of one name apart, and the old one is on its way out
    // with all 14 days still ahead (more than the 7 that flag an ordinary key).
    const rolledList = (await call({ method: 'GET', url: '/api/keys' })).json().apiKeys;
    expect(rolledList).toMatchObject([
      { id: newKey.id, name: 'roll me', replacesId: old.id, replacedById: null },
      {
        id: old.id,
        name: 'roll me',
        replacesId: null,
        replacedById: newKey.id,
        expiresAt: oldKey.expiresAt,
        isExpired: false,
        isExpiringSoon: true,
      },
    ]);
    expect(rolledList[0]).toMatchObject({ isExpiringSoon: false, expiresAt: null });

    clock.advanceDays(8);
    const listed = (await call({ method: 'GET', url: '/api/keys' })).json().apiKeys;
    const oldListed = listed.find((k: { id: string }) => k.id === old.id);
    expect(oldListed).toMatchObject({ isExpired: false, isExpiringSoon: true });
    expect((await read(old.apiKey)).statusCode).toBe(200);

    clock.advanceDays(6);
    expect((await read(old.apiKey)).statusCode).toBe(401);
    expect((await read(newKey.apiKey)).statusCode).toBe(200);
    const after = (await call({ method: 'GET', url: '/api/keys' })).json().apiKeys;
    expect(after.find((k: { id: string }) => k.id === old.id)).toMatchObject({ isExpired: true });

    const again = await call({ method: 'POST', url: `/api/keys/${old.id}/roll` });
    expect(again.statusCode).toBe(409);
  });

  it('deletes a key: refused at once', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    const key = (
      await call({ method: 'POST', url: '/api/keys', payload: { name: 'short-lived' } })
    ).json();
    expect((await call({ method: 'DELETE', url: `/api/keys/${key.id}` })).json()).toEqual({
      success: true,
    });
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: bearer(key.apiKey),
    });
    expect(read.statusCode).toBe(401);
    expect((await call({ method: 'DELETE', url: `/api/keys/${key.id}` })).statusCode).toBe(404);
  });

  it("never shows or acts on another account's keys", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const key = (
      await as(t.app, a.token)({ method: 'POST', url: '/api/keys', payload: { name: 'A' } })
    ).json();
    const asB = as(t.app, b.token);
    expect((await asB({ method: 'GET', url: '/api/keys' })).json().apiKeys).toEqual([]);
    expect((await asB({ method: 'POST', url: `/api/keys/${key.id}/roll` })).statusCode).toBe(404);
    expect((await asB({ method: 'DELETE', url: `/api/keys/${key.id}` })).statusCode).toBe(404);
    expect((await asB({ method: 'DELETE', url: '/api/keys/not-a-uuid' })).statusCode).toBe(404);

    await as(
      t.app,
      a.token,
    )({ method: 'POST', url: '/api/entities', payload: { name: 'secret', type: 'concept' } });
    const viaKey = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: bearer(key.apiKey),
    });
    expect(viaKey.json().total).toBe(1);
    const bEntities = await asB({ method: 'GET', url: '/api/entities' });
    expect(bEntities.json().total).toBe(0);
  });

  it('gives every user a stable personal key that can be regenerated', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const me = (await call({ method: 'GET', url: '/auth/me' })).json();
    expect(me.apiKey).toMatch(/^eng_key_/);
    expect(me.apiKey).toBe(user.apiKey);
    expect((await call({ method: 'GET', url: '/auth/me' })).json().apiKey).toBe(me.apiKey);

    const viaPersonal = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: bearer(me.apiKey),
    });
    expect(viaPersonal.statusCode).toBe(200);
    // The personal key is not one of the account's listed keys.
    expect((await call({ method: 'GET', url: '/api/keys' })).json().apiKeys).toEqual([]);

    const regenerated = await call({ method: 'POST', url: '/auth/me/api-key' });
    expect(regenerated.statusCode).toBe(200);
    expect(regenerated.json().apiKey).not.toBe(me.apiKey);
    const oldKey = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: bearer(me.apiKey),
    });
    expect(oldKey.statusCode).toBe(401);
    expect((await call({ method: 'GET', url: '/auth/me' })).json().apiKey).toBe(
      regenerated.json().apiKey,
    );
  });

  it('stores only hashes of keys', async () => {
    const { token } = await signUp(t.app);
    const key = (
      await as(t.app, token)({ method: 'POST', url: '/api/keys', payload: { name: 'hashed' } })
    ).json();
    const rows = await t.database.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(key.apiKey);
  });

  it('writes usage counted before it stops, even while a timed write is under way', async () => {
    const { token } = await signUp(t.app);
    const key = (
      await as(t.app, token)({ method: 'POST', url: '/api/keys', payload: { name: 'busy' } })
    ).json<{ id: string }>();
    const { account_id: accountId } = await t.database.db
      .selectFrom('api_keys')
      .select('account_id')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    const errors: unknown[] = [];
    const usage = new KeyUsageTracker(t.database.db, (error) => errors.push(error));
    usage.record(accountId, key.id, clock.now());
    // The timer's write takes the counts and is still running when the server stops…
    const timed = usage.flush();
    await usage.stop();
    // …and stop waits for it: what was counted is stored before the database may close.
    const days = await t.database.db
      .selectFrom('api_key_usage_days')
      .select('requests')
      .where('key_id', '=', key.id)
      .execute();
    expect(days).toEqual([{ requests: 1 }]);
    await timed;
    expect(errors).toEqual([]);
  });
});
