import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { accountRateLimitOf } from '../http/rate-limits.js';
import { createRuntime } from '../runtime.js';
import {
  as,
  createTestApp,
  createTestDatabase,
  manualClock,
  signUp,
  testConfig,
  type TestApp,
} from '../test/harness.js';
import { openSession } from '../test/mcp-client.js';
import { TestSocket } from '../test/ws-client.js';

// Issue 31, finding 5: rolling a key again and again multiplied it. On the
// Free plan (one key) five rolls left six keys that all worked for 14 days,
// each with its own per-minute rate budget. A key now has at most one
// predecessor in grace, and the rate limit is per account as well as per
// credential.

const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

interface Key {
  id: string;
  apiKey: string;
}

let t: TestApp;
let base: string;
const sockets: TestSocket[] = [];
beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(() => t.close());

/** A Free-plan person with one account key. */
async function personWithKey() {
  const { token } = await signUp(t.app);
  const call = as(t.app, token);
  const created = await call({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } });
  expect(created.statusCode).toBe(201);
  const roll = async (key: Key): Promise<Key> => {
    const response = await call({ method: 'POST', url: `/api/keys/${key.id}/roll` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ newKey: Key }>().newKey;
  };
  return { call, key: created.json<Key>(), roll };
}

async function status(key: Key): Promise<number> {
  return (await t.app.inject({ method: 'GET', url: '/api/entities', headers: bearer(key.apiKey) }))
    .statusCode;
}

describe('rolling never multiplies a key', () => {
  it('five rolls on the Free plan leave two working keys: the newest and its one predecessor', async () => {
    const { call, key, roll } = await personWithKey();
    const keys = [key];
    for (let i = 0; i < 5; i++) {
      // Each key is used before it is rolled, so a node that remembered it must forget it.
      expect(await status(keys.at(-1)!)).toBe(200);
      keys.push(await roll(keys.at(-1)!));
    }

    const working = [];
    for (const [index, each] of keys.entries())
      if ((await status(each)) === 200) working.push(index);
    expect(working).toEqual([4, 5]);

    const listed = (await call({ method: 'GET', url: '/api/keys' })).json<{
      apiKeys: { id: string; isExpired: boolean }[];
    }>().apiKeys;
    const expired = new Map(listed.map((each) => [each.id, each.isExpired]));
    expect(keys.map((each) => expired.get(each.id))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    // What counts against the plan: the newest key (its predecessor in grace is its overlap).
    const analytics = await call({ method: 'GET', url: '/api/analytics' });
    expect(analytics.json()).toMatchObject({ apiKeyCount: 1 });

    // Past the grace only the newest works.
    clock.advanceDays(15);
    try {
      expect([await status(keys[4]!), await status(keys[5]!)]).toEqual([401, 200]);
    } finally {
      clock.advanceDays(-15);
    }
  });

  it('rolling the successor ends the predecessor at once; a predecessor in grace cannot be rolled', async () => {
    const { call, key: first, roll } = await personWithKey();
    const second = await roll(first);
    expect([await status(first), await status(second)]).toEqual([200, 200]);

    // The predecessor in grace is not rolled a second time: that would be a second successor.
    const again = await call({ method: 'POST', url: `/api/keys/${first.id}/roll` });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'CONFLICT',
      error: 'This key has already been rolled; roll its successor instead',
    });
    const count = async () =>
      (await call({ method: 'GET', url: '/api/keys' })).json<{ apiKeys: unknown[] }>().apiKeys
        .length;
    expect(await count()).toBe(2);

    const third = await roll(second);
    expect([await status(first), await status(second), await status(third)]).toEqual([
      401, 200, 200,
    ]);
    expect(await count()).toBe(3);
  });

  it('deleting the successor ends its predecessor too, so delete-create-roll cannot pile keys up', async () => {
    const { call, key: first, roll } = await personWithKey();
    const second = await roll(first);
    expect(await status(first)).toBe(200);
    expect((await call({ method: 'DELETE', url: `/api/keys/${second.id}` })).statusCode).toBe(200);
    expect([await status(first), await status(second)]).toEqual([401, 401]);

    // The Free plan's one key again, rolled: two working keys, never three.
    const created = await call({ method: 'POST', url: '/api/keys', payload: { name: 'again' } });
    expect(created.statusCode).toBe(201);
    const fresh = created.json<Key>();
    const successor = await roll(fresh);
    const statuses = [];
    for (const each of [first, second, fresh, successor]) statuses.push(await status(each));
    expect(statuses).toEqual([401, 401, 200, 200]);
  });

  it('closes the WebSocket and the MCP session the ended predecessor opened', async () => {
    const { key: first, roll } = await personWithKey();
    const second = await roll(first);
    // During its grace the predecessor still opens connections.
    const socket = await TestSocket.open(base, first.apiKey);
    sockets.push(socket);
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
    const sessionId = await openSession(base, first.apiKey);
    const stream = await fetch(new URL('/mcp', base), {
      headers: {
        ...bearer(first.apiKey),
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
      },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const streamEnded = (async () => {
      try {
        while (!(await reader.read()).done) {
          /* keep reading */
        }
      } catch {
        /* reset by the server: ended too */
      }
      return 'ended';
    })();

    await roll(second);
    expect(await socket.closedWithin()).toEqual({ code: 4401, reason: 'API key expired' });
    expect(
      await Promise.race([
        streamEnded,
        new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000)),
      ]),
    ).toBe('ended');
    expect(t.runtime.credentials.size).toBe(0);
  });
});

describe('the rate limit is per account as well as per credential', () => {
  it('two keys of one account share the account budget: past it, 429 on /api and /mcp', async () => {
    const limited = await createTestApp(
      { API_RATE_LIMIT_PER_MINUTE: '5', API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '8' },
      { now: clock.now },
    );
    try {
      const { token } = await signUp(limited.app);
      const call = as(limited.app, token);
      // Two session requests: create a key and roll it (old and new both work).
      const old = (
        await call({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
      ).json<Key>();
      const { newKey } = (await call({ method: 'POST', url: `/api/keys/${old.id}/roll` })).json<{
        newKey: Key;
      }>();
      const read = (key: Key) =>
        limited.app.inject({ method: 'GET', url: '/api/entities', headers: bearer(key.apiKey) });
      const statuses = [];
      // Three each: under the per-credential 5, eight with the session's two.
      for (let i = 0; i < 3; i++) {
        statuses.push((await read(old)).statusCode, (await read(newKey)).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);

      const past = await read(old);
      expect(past.statusCode).toBe(429);
      expect(past.json()).toMatchObject({ code: 'RATE_LIMITED' });
      expect(past.json().error).toMatch(/this account/);
      expect(Number(past.headers['retry-after'])).toBeGreaterThan(0);
      const mcp = await limited.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...bearer(newKey.apiKey), 'content-type': 'application/json' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      expect(mcp.statusCode).toBe(429);

      // Another account is not affected.
      const other = await signUp(limited.app);
      expect(
        (
          await limited.app.inject({
            method: 'GET',
            url: '/api/entities',
            headers: bearer(other.user.apiKey),
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('defaults to three times the per-credential limit and refuses a bad value', () => {
    expect(accountRateLimitOf(testConfig())).toBe(60_000);
    expect(accountRateLimitOf(testConfig({ API_RATE_LIMIT_PER_MINUTE: '100' }))).toBe(300);
    expect(accountRateLimitOf(testConfig({ API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '1234' }))).toBe(
      1234,
    );
    expect(() => testConfig({ API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '0' })).toThrow(
      /API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE/,
    );
    expect(() => testConfig({ API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: 'lots' })).toThrow(
      /API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE/,
    );
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  it.skipIf(!redisUrl)('is one budget across nodes when REDIS_URL is set', async () => {
    const config = testConfig({
      REDIS_URL: redisUrl!,
      API_RATE_LIMIT_PER_MINUTE: '3',
      API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '4',
    });
    const database = await createTestDatabase(config.STATEMENT_TIMEOUT_MS);
    const runtime = await createRuntime(config, { database });
    // Two nodes: each its own Fastify and its own connection to the limiter's Redis.
    const nodeA = await buildApp({ config, runtime });
    const nodeB = await buildApp({ config, runtime });
    try {
      const { token, user } = await signUp(nodeA);
      const key = (
        await as(nodeA, token)({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
      ).json<Key>();
      const read = (node: typeof nodeA, apiKey: string) =>
        node.inject({ method: 'GET', url: '/api/entities', headers: bearer(apiKey) });
      // Four in all (the key's creation, one on A, two on B); no credential past its 3.
      expect((await read(nodeA, user.apiKey)).statusCode).toBe(200);
      expect((await read(nodeB, key.apiKey)).statusCode).toBe(200);
      expect((await read(nodeB, key.apiKey)).statusCode).toBe(200);
      // Node B has seen two of the account's requests; the shared budget has seen four.
      expect((await read(nodeB, user.apiKey)).statusCode).toBe(429);
    } finally {
      await nodeA.close();
      await nodeB.close();
      await runtime.close();
      await database.close();
    }
  });
});
