import { afterEach, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../test/harness.js';
import { TestSocket } from '../test/ws-client.js';

// Attacks on the realtime gateway: a socket outliving its key, foreign pages,
// connection and subscription floods, message floods, and free resume reads.

const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
const open: TestApp[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function server(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(overrides, { now: clock.now });
  open.push(t);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, base };
}

async function connect(base: string, apiKey: string) {
  const socket = await TestSocket.open(base, apiKey);
  sockets.push(socket);
  return socket;
}

async function subscribed(base: string, apiKey: string) {
  const socket = await connect(base, apiKey);
  socket.send('subscribe_to_graph_changes', {});
  await socket.next((m) => m.type === 'subscribed' && m.payload.channel === 'graph');
  return socket;
}

const entity = (name: string) => ({
  method: 'POST' as const,
  url: '/api/entities',
  payload: { name, type: 'concept', metadata: {}, observations: [] },
});

describe('a socket ends with its key', () => {
  it('closes 4401 when its key is deleted, its personal key replaced or its key rolled past the grace, and delivers nothing after', async () => {
    const { t, base } = await server();
    const { token, user } = await signUp(t.app);
    await setPlan(t, user.id, 'pro');
    const call = as(t.app, token);
    const key = async (name: string) =>
      (await call({ method: 'POST', url: '/api/keys', payload: { name } })).json<{
        id: string;
        apiKey: string;
      }>();
    const deleted = await key('deleted');
    const rolled = await key('rolled');
    const onDeleted = await subscribed(base, deleted.apiKey);
    const onPersonal = await subscribed(base, user.apiKey);
    const onRolled = await subscribed(base, rolled.apiKey);

    await call({ method: 'DELETE', url: `/api/keys/${deleted.id}` });
    expect(await onDeleted.closed).toEqual({ code: 4401, reason: 'API key revoked' });
    await call({ method: 'POST', url: '/auth/me/api-key' });
    expect(await onPersonal.closed).toEqual({ code: 4401, reason: 'API key revoked' });

    await call({ method: 'POST', url: `/api/keys/${rolled.id}/roll` });
    await call(entity('during-grace'));
    await onRolled.next((m) => m.type === 'entity_created');
    clock.advanceDays(15);
    try {
      expect(await onRolled.closed).toEqual({ code: 4401, reason: 'API key expired' });
    } finally {
      clock.advanceDays(-15);
    }

    await call(entity('after-revocation'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const socket of [onDeleted, onPersonal, onRolled]) {
      const names = socket.ofType('entity_created').map((m) => m.payload.name);
      expect(names).not.toContain('after-revocation');
    }
    expect(t.runtime.credentials.size).toBe(0);
  });
});

describe('/ws/connect from a browser', () => {
  it('refuses a foreign Origin or Host before the upgrade and accepts a loopback origin', async () => {
    const { t, base } = await server();
    const { user } = await signUp(t.app);
    await expect(
      TestSocket.open(base, user.apiKey, { origin: 'http://evil.example.com' }),
    ).rejects.toThrow(/403/);
    await expect(
      TestSocket.open(base, user.apiKey, { headers: { host: 'evil.example.com' } }),
    ).rejects.toThrow(/403/);
    const own = await TestSocket.open(base, user.apiKey, { origin: base });
    sockets.push(own);
    own.send('ping');
    await own.next((m) => m.type === 'pong');
  });
});

describe('realtime resources are bounded', () => {
  it('caps connections per key and per account, and a closed one makes room', async () => {
    const { t, base } = await server({
      WS_MAX_CONNECTIONS_PER_KEY: '2',
      WS_MAX_CONNECTIONS_PER_ACCOUNT: '3',
    });
    const { token, user } = await signUp(t.app);
    await setPlan(t, user.id, 'pro');
    const other = (
      await as(t.app, token)({ method: 'POST', url: '/api/keys', payload: { name: 'other' } })
    ).json<{ apiKey: string }>().apiKey;

    const first = await subscribed(base, user.apiKey);
    await subscribed(base, user.apiKey);
    const third = await connect(base, user.apiKey);
    expect(await third.closed).toEqual({
      code: 1008,
      reason: 'Too many connections for this API key (max 2)',
    });
    await subscribed(base, other);
    const fourth = await connect(base, other);
    expect(await fourth.closed).toEqual({
      code: 1008,
      reason: 'Too many connections for this account (max 3)',
    });

    first.close();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await subscribed(base, user.apiKey);
  });

  it('caps entity subscriptions per socket, counting each entity once', async () => {
    const { t, base } = await server({ WS_MAX_ENTITY_SUBSCRIPTIONS: '2' });
    const { user } = await signUp(t.app);
    const socket = await connect(base, user.apiKey);
    const ids = [
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000002',
      '00000000-0000-4000-8000-000000000003',
    ];
    for (const entityId of [ids[0], ids[1], ids[0]]) {
      socket.send('subscribe_to_entity', { entityId });
    }
    await socket.next((m) => m.type === 'subscribed' && m.payload.entityId === ids[1]);
    socket.send('subscribe_to_entity', { entityId: ids[2] });
    const refused = await socket.next((m) => m.type === 'error');
    expect(refused.payload.message).toMatch(/Too many entity subscriptions.*max 2/);
    socket.send('unsubscribe_from_entity', { entityId: ids[0] });
    socket.send('subscribe_to_entity', { entityId: ids[2] });
    await socket.next((m) => m.type === 'subscribed' && m.payload.entityId === ids[2]);
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
  });

  it('closes a socket that floods more messages than it waits for', async () => {
    const { t, base } = await server({ WS_MAX_QUEUED_MESSAGES: '5' });
    const { user } = await signUp(t.app);
    const socket = await connect(base, user.apiKey);
    // Resume requests each read the change log: a burst of them piles up unprocessed.
    for (let i = 0; i < 50; i++) socket.send('subscribe_to_graph_changes', { lastSeq: 0 });
    const closed = await socket.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/Too many unprocessed messages \(max 5\)/);
  });

  it('meters the resume query and refuses it past the monthly plan', async () => {
    const { t, base } = await server();
    const { token, user } = await signUp(t.app);
    await as(t.app, token)(entity('one'));
    const socket = await connect(base, user.apiKey);
    socket.send('subscribe_to_graph_changes', { lastSeq: 0 });
    await socket.next((m) => m.type === 'subscribed');
    await t.runtime.usage.flush();
    const rows = await t.database.db
      .selectFrom('usage_daily')
      .select(['operation_type', 'resource_type', 'count'])
      .where('resource_type', '=', 'graph')
      .execute();
    expect(rows).toEqual([{ operation_type: 'query', resource_type: 'graph', count: 1 }]);

    // An account past the free plan's 15,000 operations this month is refused the resume.
    const spent = await signUp(t.app);
    await t.database.db
      .insertInto('usage_daily')
      .values({
        account_id: await accountIdOf(t, spent.user.id),
        day: clock.now().toISOString().slice(0, 10),
        operation_type: 'query',
        resource_type: 'entity',
        count: 15_000,
        total_ms: 0,
      })
      .execute();
    const late = await connect(base, spent.user.apiKey);
    late.send('subscribe_to_graph_changes', { lastSeq: 0 });
    const refused = await late.next((m) => m.type === 'error');
    expect(refused.payload.message).toMatch(/Monthly operation limit reached/);
    expect(late.ofType('subscribed')).toHaveLength(0);
    late.send('ping');
    await late.next((m) => m.type === 'pong');
  });
});
