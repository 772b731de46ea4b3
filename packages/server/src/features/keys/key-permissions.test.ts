import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_ONLY_MESSAGE } from '../../http/authenticate.js';
import type { AuthContext } from '../../lib/auth-context.js';
import { as, createTestApp, setPlan, signUp, type TestApp } from '../../test/harness.js';

const LACKS_FULL_ACCESS = 'This API key lacks full access to the account';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A person on a plan with room for several keys, and their session's caller. */
async function owner() {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, 'pro');
  return { token, user, call: as(t.app, token) };
}

async function createKey(
  call: ReturnType<typeof as>,
  permissions: string[],
): Promise<{ id: string; apiKey: string; permissions: string[] }> {
  const created = await call({
    method: 'POST',
    url: '/api/keys',
    payload: { name: `key ${permissions.join(' ') || 'full'}`, permissions },
  });
  expect(created.statusCode).toBe(201);
  return created.json();
}

describe('API key permissions', () => {
  it('stores each form normalized: each grant once, write covering read, spaces:* first', async () => {
    const { call } = await owner();
    const cases: [string[], string[]][] = [
      [[], []],
      [['spaces:*:read'], ['spaces:*:read']],
      [['spaces:*:write', 'space:notes:read'], ['spaces:*:write']],
      [
        ['space:beta:write', 'space:alpha:read', 'space:beta:read', 'space:alpha:read'],
        ['space:alpha:read', 'space:beta:write'],
      ],
      [
        ['space:beta:read', 'space:alpha:write', 'spaces:*:read'],
        ['spaces:*:read', 'space:alpha:write'],
      ],
    ];
    const created = [];
    for (const [given, stored] of cases) {
      const key = await createKey(call, given);
      expect(key.permissions).toEqual(stored);
      created.push({ id: key.id, permissions: stored });
    }

    const listed = (await call({ method: 'GET', url: '/api/keys' })).json().apiKeys as {
      id: string;
      permissions: string[];
    }[];
    expect(listed.map(({ id, permissions }) => ({ id, permissions })).reverse()).toEqual(created);
  });

  it('refuses an invalid permission with a 400 naming it, and creates nothing', async () => {
    const { call, user } = await owner();
    for (const permissions of [
      ['space:Alpha:read'],
      ['spaces:*:read', 'space:alpha:admin'],
      ['spaces:alpha:read'],
      ['space:-alpha:write'],
    ]) {
      const refused = await call({
        method: 'POST',
        url: '/api/keys',
        payload: { name: 'bad', permissions },
      });
      expect(refused.statusCode).toBe(400);
      const field = `body.permissions.${permissions.length - 1}`;
      expect(refused.json().details).toContainEqual(
        expect.objectContaining({
          field,
          message:
            'Permission must be spaces:*:read, spaces:*:write, space:<slug>:read or space:<slug>:write',
        }),
      );
    }
    expect((await call({ method: 'GET', url: '/api/keys' })).json().apiKeys).toEqual([]);
    const rows = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('created_by', '=', user.id)
      .where('kind', '=', 'account')
      .execute();
    expect(rows).toEqual([]);
  });

  it("gives a request made with a key the key's permissions, from the cache as well", async () => {
    const { token, user, call } = await owner();
    const scoped = await createKey(call, ['space:alpha:write', 'spaces:*:read']);
    const full = await createKey(call, []);

    const first = await t.runtime.authenticate(scoped.apiKey);
    expect(first?.credential).toMatchObject({ kind: 'api_key', id: scoped.id });
    expect(first?.permissions).toEqual(['spaces:*:read', 'space:alpha:write']);
    expect((await t.runtime.authenticate(full.apiKey))?.permissions).toEqual([]);
    // Personal keys and sessions: full access.
    expect((await t.runtime.authenticate(user.apiKey))?.permissions ?? []).toEqual([]);
    expect((await t.runtime.authenticate(token))?.permissions ?? []).toEqual([]);

    // Gone from the database behind the cache's back: the verified row answers, permissions and all.
    await t.database.db.deleteFrom('api_keys').where('id', '=', scoped.id).execute();
    const cached = await t.runtime.authenticate(scoped.apiKey);
    expect(cached?.credential.id).toBe(scoped.id);
    expect(cached?.permissions).toEqual(['spaces:*:read', 'space:alpha:write']);
  });

  it('rolls a key into one with the same permissions', async () => {
    const { call } = await owner();
    const old = await createKey(call, ['space:alpha:read']);
    const rolled = await call({ method: 'POST', url: `/api/keys/${old.id}/roll` });
    expect(rolled.statusCode).toBe(200);
    const { newKey } = rolled.json();
    expect(newKey.permissions).toEqual(['space:alpha:read']);
    expect((await t.runtime.authenticate(newKey.apiKey))?.permissions).toEqual([
      'space:alpha:read',
    ]);
    const listed = (await call({ method: 'GET', url: '/api/keys' })).json().apiKeys;
    expect(listed.map((key: { permissions: string[] }) => key.permissions)).toEqual([
      ['space:alpha:read'],
      ['space:alpha:read'],
    ]);
  });

  it("keeps the account's settings from a scoped key", async () => {
    const { call } = await owner();
    const scoped = await createKey(call, ['spaces:*:write']);
    const full = await createKey(call, []);

    // Over HTTP these are a person's acts: no API key reaches them, scoped or not.
    for (const apiKey of [scoped.apiKey, full.apiKey]) {
      for (const [method, url] of [
        ['GET', '/api/keys'],
        ['POST', '/api/keys'],
        ['POST', `/api/keys/${full.id}/roll`],
        ['DELETE', `/api/keys/${full.id}`],
        ['GET', '/api/billing/subscription'],
        ['GET', '/api/billing/invoices'],
        ['GET', '/api/oauth/grants'],
        ['POST', '/auth/me/api-key'],
      ] as const) {
        const response = await t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${apiKey}` },
          ...(method === 'POST' ? { payload: {} } : {}),
        });
        expect(response.statusCode, `${method} ${url}`).toBe(401);
        expect(response.json().error).toBe(SESSION_ONLY_MESSAGE);
      }
    }

    // The keys service refuses a scoped credential itself, whatever adapter calls it.
    const auth = (await t.runtime.authenticate(scoped.apiKey)) as AuthContext;
    const refusals = [
      t.runtime.keys.listKeys(auth),
      t.runtime.keys.createKey(auth, { name: 'escalated', permissions: [] }),
      t.runtime.keys.rollKey(auth, full.id),
      t.runtime.keys.deleteKey(auth, full.id),
      t.runtime.keys.regeneratePersonalKey(auth),
    ];
    for (const refusal of refusals) {
      await expect(refusal).rejects.toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
        message: LACKS_FULL_ACCESS,
      });
    }
    const listed = (await call({ method: 'GET', url: '/api/keys' })).json().apiKeys;
    expect(listed.map((key: { id: string }) => key.id).sort()).toEqual([scoped.id, full.id].sort());

    // A full-access key is still a full-access key.
    const fullAuth = (await t.runtime.authenticate(full.apiKey)) as AuthContext;
    expect(await t.runtime.keys.listKeys(fullAuth)).toHaveLength(2);
  });
});
