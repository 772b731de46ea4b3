import { sql } from 'kysely';
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
// Each expectation that fails on a gateway without the defence is written so
// the failure shows what the attacker got (a socket 'still open', an event
// delivered), not a bare timeout.

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const entity = (name: string) => ({
  method: 'POST' as const,
  url: '/api/entities',
  payload: { name, type: 'concept', metadata: {}, observations: [] },
});

const createdNames = (socket: TestSocket) =>
  socket.ofType('entity_created').map((m) => m.payload.name);

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
    const kept = await key('kept');
    const onDeleted = await subscribed(base, deleted.apiKey);
    const onPersonal = await subscribed(base, user.apiKey);
    const onRolled = await subscribed(base, rolled.apiKey);
    // A key nobody touches: its socket shows the events below were published.
    const onKept = await subscribed(base, kept.apiKey);

    await call({ method: 'DELETE', url: `/api/keys/${deleted.id}` });
    const deletedClose = await onDeleted.closedWithin();
    await call({ method: 'POST', url: '/auth/me/api-key' });
    const personalClose = await onPersonal.closedWithin();

    await call({ method: 'POST', url: `/api/keys/${rolled.id}/roll` });
    // During its 14-day grace the rolled key still works...
    await call(entity('during-grace'));
    await onRolled.next((m) => m.type === 'entity_created' && m.payload.name === 'during-grace');
    // ...and past it the socket ends, within a tick of the clock.
    clock.advanceDays(15);
    let rolledClose;
    try {
      rolledClose = await onRolled.closedWithin();
    } finally {
      clock.advanceDays(-15);
    }

    await call(entity('after-revocation'));
    await onKept.next((m) => m.type === 'entity_created' && m.payload.name === 'after-revocation');
    await sleep(200); // let a socket that is wrongly still open receive it too
    const after = (socket: TestSocket) =>
      createdNames(socket).filter((name) => name === 'after-revocation');
    expect({
      deleted: { closed: deletedClose, received: after(onDeleted) },
      personal: { closed: personalClose, received: after(onPersonal) },
      rolled: { closed: rolledClose, received: after(onRolled) },
    }).toEqual({
      deleted: { closed: { code: 4401, reason: 'API key revoked' }, received: [] },
      personal: { closed: { code: 4401, reason: 'API key revoked' }, received: [] },
      rolled: { closed: { code: 4401, reason: 'API key expired' }, received: [] },
    });
    // Only the kept key's socket is still watched: closed sockets stopped watching.
    expect(t.runtime.credentials.size).toBe(1);
  }, 60_000);
});

describe('/ws/connect from a browser', () => {
  it('refuses a foreign Origin or Host with 403 before the upgrade and accepts a loopback origin', async () => {
    const { t, base } = await server();
    const { user } = await signUp(t.app);
    const attempt = async (options: Parameters<typeof TestSocket.open>[2]) => {
      try {
        sockets.push(await TestSocket.open(base, user.apiKey, options));
        return 'upgraded';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(await attempt({ origin: 'http://evil.example.com' })).toMatch(/403/);
    expect(await attempt({ headers: { host: 'evil.example.com' } })).toMatch(/403/);
    // A DNS-rebinding page: a foreign name resolving to loopback, with a matching Origin.
    const port = new URL(base).port;
    expect(
      await attempt({
        origin: `http://evil.example.com:${port}`,
        headers: { host: `evil.example.com:${port}` },
      }),
    ).toMatch(/403/);

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
    expect(await third.closedWithin()).toEqual({
      code: 1008,
      reason: 'Too many connections for this API key (max 2)',
    });
    await subscribed(base, other);
    const fourth = await connect(base, other);
    expect(await fourth.closedWithin()).toEqual({
      code: 1008,
      reason: 'Too many connections for this account (max 3)',
    });

    first.close();
    await first.closed;
    await sleep(100);
    await subscribed(base, user.apiKey);
    // Refused connections freed nothing: the key is at its cap again.
    const again = await connect(base, user.apiKey);
    expect(await again.closedWithin()).toEqual({
      code: 1008,
      reason: 'Too many connections for this API key (max 2)',
    });
  });

  it('caps entity subscriptions per socket, counting each entity once, and keeps the socket open', async () => {
    const { t, base } = await server({ WS_MAX_ENTITY_SUBSCRIPTIONS: '2' });
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c'])
      ids.push((await call(entity(name))).json<{ id: string }>().id);
    const [a, b, c] = ids as [string, string, string];
    const socket = await connect(base, user.apiKey);

    // `a` twice: a re-subscription takes no second place.
    for (const entityId of [a, b, a, c]) socket.send('subscribe_to_entity', { entityId });
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
    expect(
      socket.messages
        .filter((m) => m.type === 'subscribed' || m.type === 'error')
        .map((m) => (m.type === 'error' ? m.payload.message : m.payload.entityId)),
    ).toEqual([
      a,
      b,
      a,
      'Too many entity subscriptions on this connection (max 2); unsubscribe from some first',
    ]);

    // The refused subscription was not added: a change to `c` is not sent, one to `a` is.
    const rename = (id: string, name: string) =>
      call({ method: 'PUT', url: `/api/entities/${id}`, payload: { name, type: 'concept' } });
    await rename(c, 'c2');
    await rename(a, 'a2');
    await socket.next((m) => m.type === 'entity_updated');
    expect(socket.ofType('entity_updated').map((m) => m.payload.entityId)).toEqual([a]);

    // Unsubscribing makes room.
    socket.send('unsubscribe_from_entity', { entityId: a });
    socket.send('subscribe_to_entity', { entityId: c });
    await socket.next((m) => m.type === 'subscribed' && m.payload.entityId === c);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('closes a socket with more unprocessed messages than the cap, before and after authentication', async () => {
    const { t, base } = await server({ WS_MAX_QUEUED_MESSAGES: '5' });
    const { user } = await signUp(t.app);
    const closing = {
      code: 1008,
      reason: expect.stringMatching(/Too many unprocessed messages \(max 5\)/),
    };

    // While the key cannot be checked yet (its table is locked), messages wait, and count.
    let early;
    await t.database.db.transaction().execute(async (trx) => {
      await sql`lock table api_keys in access exclusive mode`.execute(trx);
      const socket = await connect(base, user.apiKey);
      for (let i = 0; i < 20; i++) socket.send('ping');
      early = await socket.closedWithin();
    });
    expect(early).toEqual(closing);

    // Once connected, resume requests each read the change log: a burst of them piles up.
    const socket = await connect(base, user.apiKey);
    await socket.next((m) => m.type === 'connection_established');
    for (let i = 0; i < 50; i++) socket.send('subscribe_to_graph_changes', { lastSeq: 0 });
    expect(await socket.closedWithin()).toEqual(closing);

    // A client that waits for its answers is never cut off.
    const patient = await connect(base, user.apiKey);
    for (let i = 0; i < 20; i++) {
      patient.send('ping');
      await patient.next((m) => m.type === 'pong' && patient.ofType('pong').length === i + 1);
    }
    expect(patient.ws.readyState).toBe(patient.ws.OPEN);
  });

  it('meters the resume query and refuses it past the monthly plan, replaying nothing', async () => {
    const { t, base } = await server();
    const { token, user } = await signUp(t.app);
    await as(t.app, token)(entity('one'));
    const socket = await connect(base, user.apiKey);
    socket.send('subscribe_to_graph_changes', { lastSeq: 0 });
    await socket.next((m) => m.type === 'subscribed');
    expect(createdNames(socket)).toEqual(['one']);
    await t.runtime.usage.flush();
    const rows = await t.database.db
      .selectFrom('usage_daily')
      .select(['operation_type', 'resource_type', 'count'])
      .where('resource_type', '=', 'graph')
      .execute();
    expect(rows).toEqual([{ operation_type: 'query', resource_type: 'graph', count: 1 }]);

    // An account past the free plan's 15,000 operations this month is refused the resume.
    const spent = await signUp(t.app);
    await as(t.app, spent.token)(entity('missed'));
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
    clock.advanceDays(2 / 1440); // the meter re-reads the stored monthly total each minute
    const late = await connect(base, spent.user.apiKey);
    late.send('subscribe_to_graph_changes', { lastSeq: 0 });
    const refused = await late.next((m) => m.type === 'error');
    expect(refused.payload.message).toMatch(/Monthly operation limit reached/);
    late.send('ping');
    await late.next((m) => m.type === 'pong');
    expect(late.ofType('subscribed')).toHaveLength(0);
    expect(late.messages.filter((m) => m.seq !== undefined)).toEqual([]);
  });
});
