import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createRuntime } from '../runtime.js';
import {
  as,
  createTestApp,
  createTestDatabase,
  manualClock,
  setPlan,
  signUp,
  testConfig,
  type TestApp,
} from '../test/harness.js';

// Attacks on credentials: what an API key may do, what ends when a credential
// ends, and what a stolen session or key can learn about its owner.

const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
});
afterAll(() => t.close());

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

describe('an API key is an agent, never the person', () => {
  const personRoutes = [
    { method: 'GET', url: '/auth/me' },
    { method: 'PUT', url: '/auth/me', payload: { firstName: 'Mallory', lastName: 'Key' } },
    {
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: 'Password123', newPassword: 'Guessed-999' },
    },
    { method: 'POST', url: '/auth/me/api-key' },
    { method: 'POST', url: '/auth/logout' },
    { method: 'GET', url: '/api/keys' },
    { method: 'POST', url: '/api/keys', payload: { name: 'minted by a key' } },
    { method: 'POST', url: '/api/keys/00000000-0000-4000-8000-000000000000/roll' },
    { method: 'DELETE', url: '/api/keys/00000000-0000-4000-8000-000000000000' },
  ] as const;

  it('refuses the personal key and an account key on every /auth/* and /api/keys* route with 401', async () => {
    const { token, user } = await signUp(t.app);
    await setPlan(t, user.id, 'pro');
    const accountKey = (
      await as(t.app, token)({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
    ).json<{ apiKey: string }>().apiKey;

    for (const key of [user.apiKey, accountKey]) {
      for (const headers of [bearer(key), { 'x-api-key': key }]) {
        for (const route of personRoutes) {
          const response = await t.app.inject({ ...route, headers });
          expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
          expect(response.json().error).toMatch(/signed-in session/);
          expect(response.body).not.toContain(user.apiKey);
        }
      }
      // The same key still does an agent's work.
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/entities', headers: bearer(key) }))
          .statusCode,
      ).toBe(200);
    }

    // Nothing was changed by any of those calls.
    const me = await as(t.app, token)({ method: 'GET', url: '/auth/me' });
    expect(me.json()).toMatchObject({ firstName: 'Ada', apiKey: user.apiKey });
    const keys = (await as(t.app, token)({ method: 'GET', url: '/api/keys' })).json().apiKeys;
    expect(keys.map((key: { name: string }) => key.name)).toEqual(['agent']);
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: user.email, password: 'Password123' },
    });
    expect(login.statusCode).toBe(200);
  });
});

/** A person on the Pro plan with two account keys: one to delete, one to roll. */
async function personWithTwoKeys() {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, 'pro');
  const call = as(t.app, token);
  const create = async (name: string) =>
    (await call({ method: 'POST', url: '/api/keys', payload: { name } })).json<{
      id: string;
      apiKey: string;
    }>();
  return { user, call, deleted: await create('d'), rolled: await create('r') };
}

describe('ending a credential ends it everywhere', () => {
  it('a password change ends every other session of the user at once', async () => {
    const first = await signUp(t.app);
    const second = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: first.user.email, password: 'Password123' },
    });
    const otherToken = second.json<{ token: string }>().token;
    expect((await as(t.app, otherToken)({ method: 'GET', url: '/auth/me' })).statusCode).toBe(200);

    const changed = await as(
      t.app,
      first.token,
    )({
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: 'Password123', newPassword: 'NewPassword456' },
    });
    expect(changed.statusCode).toBe(200);
    expect((await as(t.app, otherToken)({ method: 'GET', url: '/api/entities' })).statusCode).toBe(
      401,
    );
    expect((await as(t.app, first.token)({ method: 'GET', url: '/auth/me' })).statusCode).toBe(200);
  });

  it('a deleted key, a rolled key past its grace and a replaced personal key are refused on every route', async () => {
    const { user, call, deleted, rolled } = await personWithTwoKeys();
    await call({ method: 'DELETE', url: `/api/keys/${deleted.id}` });
    await call({ method: 'POST', url: `/api/keys/${rolled.id}/roll` });
    await call({ method: 'POST', url: '/auth/me/api-key' });
    clock.advanceDays(15);
    try {
      for (const key of [deleted.apiKey, rolled.apiKey, user.apiKey]) {
        for (const url of ['/api/entities', '/api/relations', '/api/entities/types']) {
          const response = await t.app.inject({ method: 'GET', url, headers: bearer(key) });
          expect(response.statusCode, url).toBe(401);
        }
      }
    } finally {
      clock.advanceDays(-15);
    }
  });

  it('a credential in use is refused as soon as it is revoked (verified credentials are not kept past a change)', async () => {
    const { user, call, deleted, rolled } = await personWithTwoKeys();
    const second = (
      await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { email: user.email, password: 'Password123' },
      })
    ).json<{ token: string }>().token;
    const keys = [deleted.apiKey, rolled.apiKey, user.apiKey, second];
    for (const key of keys) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/entities',
        headers: bearer(key),
      });
      expect(response.statusCode).toBe(200);
    }
    await call({ method: 'DELETE', url: `/api/keys/${deleted.id}` });
    await call({ method: 'POST', url: `/api/keys/${rolled.id}/roll` });
    await call({ method: 'POST', url: '/auth/me/api-key' });
    await as(t.app, second)({ method: 'POST', url: '/auth/logout' });
    // The rolled key works through its grace, with its new expiry.
    const inGrace = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: bearer(rolled.apiKey),
    });
    expect(inGrace.statusCode).toBe(200);
    for (const key of [deleted.apiKey, user.apiKey, second]) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/entities',
        headers: bearer(key),
      });
      expect(response.statusCode).toBe(401);
    }
    clock.advanceDays(15);
    try {
      const pastGrace = await t.app.inject({
        method: 'GET',
        url: '/api/entities',
        headers: bearer(rolled.apiKey),
      });
      expect(pastGrace.statusCode).toBe(401);
    } finally {
      clock.advanceDays(-15);
    }
  });
});

describe('plan limits hold under races', () => {
  it('ten concurrent key creations on the one-key free plan create exactly one key', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call({ method: 'POST', url: '/api/keys', payload: { name: `race ${i}` } }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([201, 402, 402, 402, 402, 402, 402, 402, 402, 402]);
    expect((await call({ method: 'GET', url: '/api/keys' })).json().apiKeys).toHaveLength(1);
  });

  it('rolling an expired key does not bring a key back past the plan limit', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    const old = (
      await call({ method: 'POST', url: '/api/keys', payload: { name: 'old', expiresInDays: 1 } })
    ).json();
    clock.advanceDays(2);
    try {
      // The expired key no longer counts: a new one fits the one-key plan.
      const fresh = await call({ method: 'POST', url: '/api/keys', payload: { name: 'fresh' } });
      expect(fresh.statusCode).toBe(201);
      const roll = await call({ method: 'POST', url: `/api/keys/${old.id}/roll` });
      expect(roll.statusCode).toBe(402);
      expect(roll.json().error).toMatch(/API key limit reached/);
      const live = (await call({ method: 'GET', url: '/api/keys' }))
        .json()
        .apiKeys.filter((key: { isExpired: boolean }) => !key.isExpired);
      expect(live).toHaveLength(1);
    } finally {
      clock.advanceDays(-2);
    }
  });
});

describe('the personal-key secret', () => {
  it('setting SECRET_KEY later replaces personal keys instead of showing keys that fail', async () => {
    const database = await createTestDatabase();
    const open = async (secret?: string) => {
      const config = testConfig(secret ? { SECRET_KEY: secret } : {});
      const runtime = await createRuntime(config, { database });
      const app = await buildApp({ config, runtime });
      await app.ready();
      return {
        app,
        close: async () => {
          await app.close();
          await runtime.close();
        },
      };
    };
    try {
      const before = await open();
      const { token, user } = await signUp(before.app);
      await before.close();

      const after = await open('a-secret-set-later-that-is-long-enough-1234');
      try {
        const me = (await as(after.app, token)({ method: 'GET', url: '/auth/me' })).json();
        expect(me.apiKey).not.toBe(user.apiKey);
        const shown = await after.app.inject({
          method: 'GET',
          url: '/api/entities',
          headers: bearer(me.apiKey),
        });
        expect(shown.statusCode).toBe(200);
        const old = await after.app.inject({
          method: 'GET',
          url: '/api/entities',
          headers: bearer(user.apiKey),
        });
        expect(old.statusCode).toBe(401);
        // Stable from then on.
        const again = (await as(after.app, token)({ method: 'GET', url: '/auth/me' })).json();
        expect(again.apiKey).toBe(me.apiKey);
      } finally {
        await after.close();
      }
    } finally {
      await database.close();
    }
  });
});
