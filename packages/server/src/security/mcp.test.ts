import { afterEach, describe, expect, it } from 'vitest';
import { as, createTestApp, manualClock, setPlan, signUp, type TestApp } from '../test/harness.js';
import {
  connectMcpModern,
  INITIALIZE,
  MODERN_REVISION,
  openSession,
  postMcp,
} from '../test/mcp-client.js';

// Attacks on /mcp sessions: using another credential's session, keeping a
// session (or a 2026-era listen stream) alive after the credential is gone,
// opening sessions or listens without end, and driving the endpoint from a
// foreign web page.

const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
const open: TestApp[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function server(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(overrides, { now: clock.now });
  open.push(t);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, base };
}

function listTools(base: string, credential: string, sessionId: string) {
  return postMcp(
    base,
    credential,
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { 'mcp-session-id': sessionId },
  );
}

/** Opens the session's GET stream; resolves `ended` when the server closes it. */
async function openStream(base: string, credential: string, sessionId: string) {
  const response = await fetch(new URL('/mcp', base), {
    headers: {
      authorization: `Bearer ${credential}`,
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
    },
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done) {
        /* keep reading */
      }
    } catch {
      /* reset by the server: ended too */
    }
    return true;
  })();
  return { ended };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return Promise.race([promise, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);
}

async function keyFor(t: TestApp, token: string, name = 'agent') {
  return (await as(t.app, token)({ method: 'POST', url: '/api/keys', payload: { name } })).json<{
    id: string;
    apiKey: string;
  }>();
}

describe('an MCP session belongs to the credential that opened it', () => {
  it('is unknown (404) to another key of the same account and to another account', async () => {
    const { t, base } = await server();
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, 'pro');
    const second = await keyFor(t, owner.token);
    const stranger = await signUp(t.app);
    const id = await openSession(base, owner.user.apiKey);

    expect((await listTools(base, owner.user.apiKey, id)).status).toBe(200);
    for (const credential of [second.apiKey, owner.token, stranger.user.apiKey]) {
      const response = await listTools(base, credential, id);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /Session not found/,
      );
    }
  });
});

describe('an MCP session ends with its credential', () => {
  it('ends when its key is deleted, its personal key replaced, its session logged out, or its key rolled past the grace', async () => {
    const { t, base } = await server();
    const { token, user } = await signUp(t.app);
    await setPlan(t, user.id, 'pro');
    const deleted = await keyFor(t, token, 'deleted');
    const rolled = await keyFor(t, token, 'rolled');
    const otherLogin = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: user.email, password: 'Password123' },
    });
    const otherToken = otherLogin.json<{ token: string }>().token;

    const streams = {
      deleted: await openStream(base, deleted.apiKey, await openSession(base, deleted.apiKey)),
      personal: await openStream(base, user.apiKey, await openSession(base, user.apiKey)),
      session: await openStream(base, otherToken, await openSession(base, otherToken)),
      rolled: await openStream(base, rolled.apiKey, await openSession(base, rolled.apiKey)),
    };
    const call = as(t.app, token);

    await call({ method: 'DELETE', url: `/api/keys/${deleted.id}` });
    expect(await within(streams.deleted.ended, 5_000)).toBe(true);
    await call({ method: 'POST', url: '/auth/me/api-key' });
    expect(await within(streams.personal.ended, 5_000)).toBe(true);
    await as(t.app, otherToken)({ method: 'POST', url: '/auth/logout' });
    expect(await within(streams.session.ended, 5_000)).toBe(true);

    await call({ method: 'POST', url: `/api/keys/${rolled.id}/roll` });
    // Still inside the 14-day grace: the session lives on.
    expect(await within(streams.rolled.ended, 1_500)).toBe('timeout');
    clock.advanceDays(15);
    try {
      expect(await within(streams.rolled.ended, 5_000)).toBe(true);
    } finally {
      clock.advanceDays(-15);
    }
    expect(t.runtime.credentials.size).toBe(0);
  });
});

describe('MCP sessions are bounded', () => {
  it('at the account cap, refuses a new session (429) while every session is in use, and closes one idle for a minute for it', async () => {
    const { t, base } = await server({ MCP_MAX_SESSIONS_PER_ACCOUNT: '2' });
    const { user } = await signUp(t.app);
    const first = await openSession(base, user.apiKey);
    const second = await openSession(base, user.apiKey);
    // Both live: the third is refused, and neither is touched.
    const refused = await postMcp(base, user.apiKey, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'This account has 2 MCP sessions open, the most its plan allows, all in use; end one (DELETE /mcp) or retry in 60 s',
    );
    expect((await listTools(base, user.apiKey, first)).status).toBe(200);
    expect((await listTools(base, user.apiKey, second)).status).toBe(200);

    // A minute on, the first is used again and the second has sat idle: it gives way.
    clock.advanceDays(61 / 86_400);
    expect((await listTools(base, user.apiKey, first)).status).toBe(200);
    const third = await openSession(base, user.apiKey);
    const closed = await listTools(base, user.apiKey, second);
    expect(closed.status).toBe(404);
    expect(((await closed.json()) as { error: { message: string } }).error.message).toBe(
      'Session closed: it sat idle while its account needed room for a new one; reconnect with initialize',
    );
    expect((await listTools(base, user.apiKey, first)).status).toBe(200);
    expect((await listTools(base, user.apiKey, third)).status).toBe(200);
  });

  it("lets a plan hold twice its API keys in sessions when that passes the operator's cap", async () => {
    const { t, base } = await server({ MCP_MAX_SESSIONS_PER_ACCOUNT: '2' });
    const { user } = await signUp(t.app);
    await setPlan(t, user.id, 'starter'); // 3 keys: 6 sessions
    for (let i = 0; i < 6; i += 1) await openSession(base, user.apiKey);
    expect((await postMcp(base, user.apiKey, INITIALIZE)).status).toBe(429);
  });

  it('refuses a session past MCP_MAX_SESSIONS on the node with 503 and Retry-After', async () => {
    const { t, base } = await server({ MCP_MAX_SESSIONS: '2' });
    const accounts = [await signUp(t.app), await signUp(t.app), await signUp(t.app)];
    await openSession(base, accounts[0]!.user.apiKey);
    await openSession(base, accounts[1]!.user.apiKey);
    const refused = await postMcp(base, accounts[2]!.user.apiKey, INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /no room for another MCP session/,
    );
  });

  it('closes sessions idle for MCP_SESSION_IDLE_MINUTES', async () => {
    const { t, base } = await server({ MCP_SESSION_IDLE_MINUTES: '10' });
    const { user } = await signUp(t.app);
    const idle = await openSession(base, user.apiKey);
    const busy = await openSession(base, user.apiKey);
    clock.advanceDays(6 / 1440);
    expect((await listTools(base, user.apiKey, busy)).status).toBe(200);
    clock.advanceDays(6 / 1440);
    await openSession(base, user.apiKey); // a new session sweeps the idle ones
    expect((await listTools(base, user.apiKey, idle)).status).toBe(404);
    expect((await listTools(base, user.apiKey, busy)).status).toBe(200);
  });
});

describe('/mcp from a browser', () => {
  it('refuses a foreign Origin or Host with 403 and accepts its own loopback origin', async () => {
    const { t, base } = await server();
    const { user } = await signUp(t.app);
    const tools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const evil = await postMcp(base, user.apiKey, tools, { origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: string }).error).toMatch(/Origin not allowed/);

    const rebound = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: 'evil.example.com', authorization: `Bearer ${user.apiKey}` },
      payload: tools,
    });
    expect(rebound.statusCode).toBe(403);

    const port = new URL(base).port;
    const own = await postMcp(base, user.apiKey, tools, { origin: `http://localhost:${port}` });
    expect(own.status).not.toBe(403);
  });

  it('accepts PUBLIC_URL as the one browser origin', async () => {
    const { t, base } = await server({ PUBLIC_URL: 'https://engram.example.com' });
    const { user } = await signUp(t.app);
    const tools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const port = new URL(base).port;
    expect(
      (await postMcp(base, user.apiKey, tools, { origin: 'https://engram.example.com' })).status,
    ).not.toBe(403);
    expect(
      (await postMcp(base, user.apiKey, tools, { origin: `http://localhost:${port}` })).status,
    ).toBe(403);
  });
});

/** A 2026-07-28 request body: the per-request envelope in `_meta`. */
function modern(method: string, params: Record<string, unknown> = {}, id: number | null = 1) {
  return {
    jsonrpc: '2.0',
    ...(id === null ? {} : { id }),
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'attack-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}
/** A 2026-07-28 request as a client sends it: the revision and the method in headers too. */
function postModern(
  base: string,
  credential: string,
  body: { method: string },
  headers: Record<string, string> = {},
) {
  return postMcp(base, credential, body, {
    'mcp-protocol-version': MODERN_REVISION,
    'mcp-method': body.method,
    ...headers,
  });
}

describe('2026-era listen streams', () => {
  it('end when the credential that opened them is revoked', async () => {
    const { t, base } = await server();
    const { token, user } = await signUp(t.app);
    await setPlan(t, user.id, 'pro');
    const key = await keyFor(t, token);
    const client = await connectMcpModern(base, key.apiKey);
    try {
      const subscription = await client.listen({
        resourceSubscriptions: ['memory://knowledge-graph'],
      });
      expect(await within(subscription.closed, 500)).toBe('timeout');
      await as(t.app, token)({ method: 'DELETE', url: `/api/keys/${key.id}` });
      expect(await within(subscription.closed, 5_000)).toBe('remote');
      // And the key opens nothing new.
      const refused = await postModern(base, key.apiKey, modern('tools/list'));
      expect(refused.status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('count against MCP_MAX_SESSIONS: past it a listen is refused with 503', async () => {
    const { t, base } = await server({ MCP_MAX_SESSIONS: '1' });
    const { user } = await signUp(t.app);
    const client = await connectMcpModern(base, user.apiKey);
    try {
      await client.listen({ resourceSubscriptions: ['memory://knowledge-graph'] });
      const refused = await postModern(
        base,
        user.apiKey,
        modern('subscriptions/listen', {
          notifications: { resourceSubscriptions: ['memory://knowledge-graph'] },
        }),
      );
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      // Stateless calls need no room: they still work.
      const tools = await postModern(base, user.apiKey, modern('tools/list'));
      expect(tools.status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('answers malformed 2026-era requests below 500, from a foreign origin with 403', async () => {
    const { t, base } = await server();
    const { user } = await signUp(t.app);
    const broken: { method: string; params?: unknown }[] = [
      modern('tools/call', { name: 'read_graph', arguments: 'not an object' }),
      modern('tools/call', { name: 'no_such_tool' }),
      modern('subscriptions/listen', { notifications: 'everything' }),
      modern('resources/read', { uri: 'memory://someone-else' }),
      {
        ...modern('tools/list'),
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } },
      },
      modern('initialize'),
      modern('notifications/initialized', {}, null),
    ];
    for (const body of broken) {
      const response = await postModern(base, user.apiKey, body);
      expect(response.status, JSON.stringify(body)).toBeLessThan(500);
      await response.text();
    }
    const evil = await postModern(base, user.apiKey, modern('tools/list'), {
      origin: 'http://evil.example.com',
    });
    expect(evil.status).toBe(403);
  });
});
