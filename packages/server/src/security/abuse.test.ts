import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
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

// Attacks on the shared server: guessing passwords, probing emails, flooding
// the API, reading secrets out of logs, and statements that run too long.

const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
const open: TestApp[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((app) => app.close()));
});

async function app(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const created = await createTestApp(overrides, { now: clock.now });
  open.push(created);
  return created;
}

function login(t: TestApp, email: string, password: string, remoteAddress = '203.0.113.1') {
  return t.app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { email, password },
    remoteAddress,
  });
}

describe('sign-in abuse', () => {
  it('locks an email after repeated failures from any address, known or not, and unlocks after the lock time', async () => {
    const t = await app({ LOGIN_MAX_FAILURES: '4', LOGIN_LOCK_MINUTES: '15' });
    const { user } = await signUp(t.app);
    for (let i = 0; i < 4; i++) {
      const failed = await login(t, user.email, 'wrong-password', `198.51.100.${i}`);
      expect(failed.statusCode).toBe(401);
    }
    // Locked: even the right password from a fresh address is refused.
    const locked = await login(t, user.email, 'Password123', '192.0.2.77');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toMatch(/Too many failed sign-ins/);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);

    // An unknown email locks the same way, so a lock tells nothing about existence.
    const ghost = `nobody-${randomUUID()}@example.com`;
    for (let i = 0; i < 4; i++) await login(t, ghost, 'whatever-1', `198.51.100.${i}`);
    const ghostLocked = await login(t, ghost, 'whatever-1');
    expect(ghostLocked.statusCode).toBe(429);
    expect(ghostLocked.json().error).toBe(locked.json().error);

    clock.advanceDays(16 / (24 * 60));
    const after = await login(t, user.email, 'Password123');
    expect(after.statusCode).toBe(200);
  });

  it('holds back repeated failures for one email before the lock', async () => {
    const t = await app({ LOGIN_MAX_FAILURES: '10' });
    const email = `slow-${randomUUID()}@example.com`;
    for (let i = 0; i < 5; i++) await login(t, email, 'wrong-password');
    const started = performance.now();
    const held = await login(t, email, 'wrong-password');
    expect(held.statusCode).toBe(401);
    // The sixth failure waits at least 200 ms before it is answered.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('throttles wrong current passwords on POST /auth/password', async () => {
    const t = await app({ PASSWORD_CHANGE_ATTEMPTS: '3' });
    const { token, user } = await signUp(t.app);
    const change = (currentPassword: string) =>
      as(
        t.app,
        token,
      )({
        method: 'POST',
        url: '/auth/password',
        payload: { currentPassword, newPassword: 'BrandNew-123' },
      });
    for (let i = 0; i < 3; i++) expect((await change(`guess-${i}-xx`)).statusCode).toBe(400);
    const locked = await change('Password123');
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBeDefined();
    // The password did not change.
    expect((await login(t, user.email, 'Password123')).statusCode).toBe(200);
  });

  it('stops one address from probing which emails have accounts', async () => {
    const t = await app({ REGISTER_CONFLICTS_PER_HOUR: '3' });
    const { user } = await signUp(t.app);
    const register = (email: string, remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: { email, password: 'Password123', firstName: 'P', lastName: 'Q' },
        remoteAddress,
      });
    for (let i = 0; i < 3; i++) {
      expect((await register(user.email, '203.0.113.9')).statusCode).toBe(409);
    }
    // From then on the address learns nothing: taken or free, the answer is 429.
    const taken = await register(user.email, '203.0.113.9');
    const free = await register(`new-${randomUUID()}@example.com`, '203.0.113.9');
    expect(taken.statusCode).toBe(429);
    expect(free.statusCode).toBe(429);
    expect(free.headers['retry-after']).toBeDefined();
    // Another address signs up normally.
    expect((await register(`ok-${randomUUID()}@example.com`, '203.0.113.10')).statusCode).toBe(201);
  });

  it('takes the client address from X-Forwarded-For only with TRUST_PROXY', async () => {
    const forwarded = (t: TestApp, from: string) =>
      t.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: {
          email: `fwd-${randomUUID()}@example.com`,
          password: 'Password123',
          firstName: 'P',
          lastName: 'Q',
        },
        remoteAddress: '10.0.0.1',
        headers: { 'x-forwarded-for': from },
      });
    for (const [trust, expected] of [
      ['1', [201, 201, 201]],
      ['false', [201, 201, 429]],
    ] as const) {
      const t = await app({ TRUST_PROXY: trust, AUTH_RATE_LIMIT_PER_MINUTE: '2' });
      const statuses = [];
      for (const from of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        statuses.push((await forwarded(t, from)).statusCode);
      }
      expect(statuses, `TRUST_PROXY=${trust}`).toEqual(expected);
    }
  });

  it('believes only the hops TRUST_PROXY names: `true` is the nearest proxy, not the client', async () => {
    // The client writes its own X-Forwarded-For; the one proxy in front appends what it saw.
    for (const trust of ['true', '1']) {
      const t = await app({ TRUST_PROXY: trust, AUTH_RATE_LIMIT_PER_MINUTE: '2' });
      const statuses = [];
      for (const spoofed of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { email: `nobody-${randomUUID()}@example.com`, password: 'Password123' },
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': `${spoofed}, 203.0.113.50` },
        });
        statuses.push(response.statusCode);
      }
      expect(statuses, `TRUST_PROXY=${trust}`).toEqual([401, 401, 429]);
    }
  });
});

describe('flooding the API', () => {
  it('limits requests per credential per minute on /api and /mcp, each credential on its own', async () => {
    const t = await app({ API_RATE_LIMIT_PER_MINUTE: '5' });
    const first = await signUp(t.app);
    const second = await signUp(t.app);
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (
          await t.app.inject({
            method: 'GET',
            url: '/api/entities',
            headers: { 'x-api-key': first.user.apiKey },
          })
        ).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${first.user.apiKey}`, 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode).toBe(429);
    const other = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { 'x-api-key': second.user.apiKey },
    });
    expect(other.statusCode).toBe(200);
  });
});

describe('secrets never reach the logs', () => {
  it('redacts api_key and token query values and credential headers from request logs', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const database = await createTestDatabase();
    const config = testConfig({ LOG_LEVEL: 'debug', NODE_ENV: 'production' });
    const runtime = await createRuntime(config, { database });
    const server = await buildApp({ config, runtime, logDestination: sink });
    try {
      await server.ready();
      const { user, token } = await signUp(server);
      await server.inject({ method: 'GET', url: `/ws/connect?api_key=${user.apiKey}` });
      await server.inject({
        method: 'GET',
        url: `/api/entities?limit=5&token=${token}&apiKey=${user.apiKey}`,
      });
      await server.inject({
        method: 'GET',
        url: '/api/entities',
        headers: { authorization: `Bearer ${token}` },
      });
      await server.inject({
        method: 'GET',
        url: '/api/entities',
        headers: { 'x-api-key': user.apiKey },
      });
      await server.inject({ method: 'GET', url: `/no-such-page?api_key=${user.apiKey}` });
      const log = lines.join('');
      expect(log).toContain('/ws/connect?api_key=[REDACTED]');
      expect(log).toContain('limit=5');
      expect(log).not.toContain(user.apiKey);
      expect(log).not.toContain(token);
      expect(log).not.toContain(user.apiKey.slice(8, 30));
    } finally {
      await server.close();
      await runtime.close();
      await database.close();
    }
  });
});

describe('statements that run too long', () => {
  let t: TestApp;
  let entityId: string;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp({ STATEMENT_TIMEOUT_MS: '10' });
    // Even sign-up runs under the 10 ms limit: on a slow or loaded machine it
    // may be cut too, so retry it, pausing between tries for a quieter moment.
    let account: Awaited<ReturnType<typeof signUp>> | undefined;
    for (let attempt = 0; !account && attempt < 100; attempt++) {
      account = await signUp(t.app).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return undefined;
      });
    }
    if (!account) throw new Error('could not sign up under a 10 ms statement timeout');
    const { token: signedIn, user } = account;
    token = signedIn;
    // Seeded in a maintenance session (no statement timeout, so a loaded
    // machine cannot cut the seeding itself): one entity with 100,000
    // observations for a delete to cascade.
    const [row] = await t.database.withSession(async (session) => {
      const [member] = await session.query<{ account_id: string }>(
        'select account_id from account_members where user_id = $1',
        [user.id],
      );
      const [entity] = await session.query<{ id: string }>(
        `insert into entities (space_id, name, type, observations_count)
         values ($1, 'heavy', 'concept', 100000) returning id`,
        [member!.account_id],
      );
      await session.query(
        `insert into observations (space_id, entity_id, content, position)
         select $1, $2, 'observation ' || n, n from generate_series(1, 100000) n`,
        [member!.account_id, entity!.id],
      );
      return [entity!];
    });
    entityId = row!.id;
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After and changes nothing when a write runs past the timeout', async () => {
    const deleted = await as(t.app, token)({ method: 'DELETE', url: `/api/entities/${entityId}` });
    expect(deleted.statusCode).toBe(503);
    expect(deleted.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(deleted.json().error).toMatch(/nothing was changed/);
    expect(deleted.headers['retry-after']).toBe('1');
    const left = await t.database.withSession((session) =>
      session.query<{ count: number }>(
        'select count(*)::int as count from observations where entity_id = $1',
        [entityId],
      ),
    );
    expect(left[0]!.count).toBe(100_000);
    const still = await t.database.withSession((session) =>
      session.query('select 1 from entities where id = $1', [entityId]),
    );
    expect(still).toHaveLength(1);
  });
});
