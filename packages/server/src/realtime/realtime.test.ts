import { CLIENT_ID_HEADER, graphChange } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphService } from '../features/graph/graph.service.js';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';
import { callTool, connectMcp } from '../test/mcp-client.js';
import { TestSocket } from '../test/ws-client.js';

let t: TestApp;
let baseUrl: string;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await t.close();
});

async function account() {
  const { token, user } = await signUp(t.app);
  return { call: as(t.app, token), apiKey: user.apiKey };
}

async function subscribed(apiKey: string, payload: Record<string, unknown> = {}) {
  const socket = await TestSocket.open(baseUrl, apiKey);
  sockets.push(socket);
  socket.send('subscribe_to_graph_changes', payload);
  await socket.next((m) => m.type === 'subscribed' && m.payload.channel === 'graph');
  return socket;
}

describe('realtime gateway', () => {
  it('refuses a missing or bad key with close code 4401 and a reason', async () => {
    const socket = await TestSocket.open(baseUrl, 'eng_key_nope');
    expect(await socket.closed).toEqual({ code: 4401, reason: 'Invalid or expired API key' });
    const empty = await TestSocket.open(baseUrl, '');
    expect((await empty.closed).code).toBe(4401);
  });

  it('sends every kind of change from REST, in order, each with its seq', async () => {
    const { call, apiKey } = await account();
    const socket = await subscribed(apiKey);
    const a = (
      await call({ method: 'POST', url: '/api/entities', payload: { name: 'A', type: 'x' } })
    ).json();
    const b = (
      await call({ method: 'POST', url: '/api/entities', payload: { name: 'B', type: 'x' } })
    ).json();
    await call({ method: 'PUT', url: `/api/entities/${a.id}`, payload: { name: 'A2', type: 'x' } });
    await call({
      method: 'POST',
      url: `/api/entities/${a.id}/observations`,
      payload: { observations: ['note'] },
    });
    const r = (
      await call({
        method: 'POST',
        url: '/api/relations',
        payload: { fromEntityId: a.id, toEntityId: b.id, type: 'uses' },
      })
    ).json();
    await call({ method: 'PUT', url: `/api/relations/${r.id}`, payload: { type: 'needs' } });
    await call({ method: 'DELETE', url: `/api/relations/${r.id}` });
    await call({ method: 'DELETE', url: `/api/entities/${b.id}` });

    await socket.next((m) => m.type === 'entity_deleted');
    const events = socket.messages.filter((m) => m.seq !== undefined);
    expect(events.map((m) => m.type)).toEqual([
      'entity_created',
      'entity_created',
      'entity_updated',
      'observation_added',
      'relation_created',
      'relation_updated',
      'relation_deleted',
      'entity_deleted',
    ]);
    const seqs = events.map((m) => m.seq!);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events[0]).toMatchObject({ payload: { name: 'A', seq: seqs[0] } });
    expect(events[4]!.payload).toMatchObject({ relationType: 'uses', relationId: r.id });
    expect(events[6]!.payload).toMatchObject({ relationId: r.id });
    expect(events[7]!.payload).toMatchObject({ entityId: b.id });
    for (const event of events) {
      expect(event).toEqual({
        id: expect.any(String),
        type: expect.any(String),
        payload: expect.any(Object),
        timestamp: expect.any(String),
        seq: expect.any(Number),
        space: 'default',
      });
    }
  });

  it('sends changes made over MCP', async () => {
    const { apiKey } = await account();
    const socket = await subscribed(apiKey);
    const client = await connectMcp(baseUrl, apiKey);
    await callTool(client, 'create_entities', {
      entities: [{ name: 'FromAgent', entityType: 'agent', observations: [] }],
    });
    await client.close();
    expect((await socket.next((m) => m.type === 'entity_created')).payload.name).toBe('FromAgent');
  });

  it('sends the events of one write as separate messages, each in the shared shape', async () => {
    const { apiKey } = await account();
    const socket = await subscribed(apiKey);
    const other = await subscribed(apiKey);
    const client = await connectMcp(baseUrl, apiKey);
    await callTool(client, 'create_entities', {
      entities: ['One', 'Two', 'Three'].map((name) => ({
        name,
        entityType: 't',
        observations: [],
      })),
    });
    await client.close();
    for (const watcher of [socket, other]) {
      await watcher.next((m) => m.payload.name === 'Three');
      const events = watcher.messages.filter((m) => m.seq !== undefined);
      expect(events.map((m) => m.payload.name)).toEqual(['One', 'Two', 'Three']);
      expect(events.map((m) => m.seq! - events[0]!.seq!)).toEqual([0, 1, 2]);
      for (const event of events) {
        expect(graphChange.safeParse(event).success).toBe(true);
        expect(event.id).toBe(`event-${event.seq}`);
      }
    }
  });

  it("never shows one account's events to another", async () => {
    const one = await account();
    const two = await account();
    const watcher = await subscribed(two.apiKey);
    await one.call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Secret', type: 'x' },
    });
    await two.call({ method: 'POST', url: '/api/entities', payload: { name: 'Mine', type: 'x' } });
    await watcher.next((m) => m.type === 'entity_created');
    expect(watcher.ofType('entity_created').map((m) => m.payload.name)).toEqual(['Mine']);
  });

  it('replays what a reconnecting client missed, without gaps or repeats', async () => {
    const { call, apiKey } = await account();
    const first = await subscribed(apiKey);
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'seen', type: 'x' } });
    const lastSeen = (await first.next((m) => m.type === 'entity_created')).seq!;
    first.close();
    await first.closed;

    for (const name of ['missed-1', 'missed-2', 'missed-3']) {
      await call({ method: 'POST', url: '/api/entities', payload: { name, type: 'x' } });
    }
    const again = await subscribed(apiKey, { lastSeq: lastSeen });
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'live', type: 'x' } });
    await again.next((m) => m.payload.name === 'live');
    const names = again.ofType('entity_created').map((m) => m.payload.name);
    expect(names).toEqual(['missed-1', 'missed-2', 'missed-3', 'live']);
    const seqs = again.ofType('entity_created').map((m) => m.seq);
    expect(seqs).toEqual([lastSeen + 1, lastSeen + 2, lastSeen + 3, lastSeen + 4]);
  });

  it('names the client that made a change, live and replayed, and no one else', async () => {
    const { call, apiKey } = await account();
    const socket = await subscribed(apiKey);
    const tab = 'tab-3f9c2a71';
    const named = (name: string, headers: Record<string, string> = {}) =>
      call({ method: 'POST', url: '/api/entities', headers, payload: { name, type: 'x' } });
    expect((await named('from-tab', { [CLIENT_ID_HEADER]: tab })).statusCode).toBe(201);
    expect((await named('from-elsewhere')).statusCode).toBe(201);
    // Not a client id: ignored, never echoed.
    expect((await named('bad-id', { [CLIENT_ID_HEADER]: 'no spaces allowed' })).statusCode).toBe(
      201,
    );
    await socket.next((m) => m.payload.name === 'bad-id');
    const origins = (s: TestSocket) =>
      s.ofType('entity_created').map((m) => [m.payload.name, m.origin]);
    const expected = [
      ['from-tab', tab],
      ['from-elsewhere', undefined],
      ['bad-id', undefined],
    ];
    expect(origins(socket)).toEqual(expected);

    // A client resuming from the change log hears the same.
    const resumed = await subscribed(apiKey, { lastSeq: 0 });
    expect(origins(resumed)).toEqual(expected);
  });

  it('replays in seq order across a digit boundary', async () => {
    const { call, apiKey } = await account();
    for (let index = 1; index <= 12; index++) {
      await call({
        method: 'POST',
        url: '/api/entities',
        payload: { name: `n${index}`, type: 'x' },
      });
    }
    const socket = await subscribed(apiKey, { lastSeq: 5 });
    const names = socket.ofType('entity_created').map((m) => m.payload.name);
    expect(names).toEqual(['n6', 'n7', 'n8', 'n9', 'n10', 'n11', 'n12']);
  });

  it('answers ping with pong and malformed messages with an error, staying open', async () => {
    const { apiKey } = await account();
    const socket = await TestSocket.open(baseUrl, apiKey);
    sockets.push(socket);
    socket.ws.send('not json');
    socket.ws.send(JSON.stringify({ type: 'launch_rockets' }));
    socket.ws.send(JSON.stringify({ type: 'subscribe_to_entity', payload: {} }));
    socket.ws.send(JSON.stringify([1, 2, 3]));
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
    const errors = socket.ofType('error');
    expect(errors).toHaveLength(4);
    expect(errors[0]!.payload.message).toBe('Messages must be JSON');
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('sends only the events of subscribed entities', async () => {
    const { call, apiKey } = await account();
    const a = (
      await call({ method: 'POST', url: '/api/entities', payload: { name: 'watched', type: 'x' } })
    ).json();
    const b = (
      await call({ method: 'POST', url: '/api/entities', payload: { name: 'other', type: 'x' } })
    ).json();
    const socket = await TestSocket.open(baseUrl, apiKey);
    sockets.push(socket);
    socket.send('subscribe_to_entity', { entityId: a.id });
    await socket.next((m) => m.type === 'subscribed');
    await call({
      method: 'PUT',
      url: `/api/entities/${b.id}`,
      payload: { name: 'other2', type: 'x' },
    });
    await call({
      method: 'PUT',
      url: `/api/entities/${a.id}`,
      payload: { name: 'watched2', type: 'x' },
    });
    await call({
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: b.id, toEntityId: a.id, type: 'sees' },
    });
    await socket.next((m) => m.type === 'relation_created');
    expect(socket.messages.filter((m) => m.seq).map((m) => m.type)).toEqual([
      'entity_updated',
      'relation_created',
    ]);
    socket.send('unsubscribe_from_entity', { entityId: a.id });
    await socket.next((m) => m.type === 'unsubscribed');
    await call({
      method: 'PUT',
      url: `/api/entities/${a.id}`,
      payload: { name: 'watched3', type: 'x' },
    });
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
    expect(socket.ofType('entity_updated')).toHaveLength(1);
  });

  it('fills a gap from the change log when events are published out of order', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const socket = await subscribed(user.apiKey);
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'first', type: 'x' } });
    await socket.next((m) => m.payload.name === 'first');

    // Two committed changes whose publication is still on its way…
    const member = await t.database.db
      .selectFrom('account_members')
      .select('account_id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const auth = {
      accountId: member.account_id,
      space: { id: member.account_id, slug: 'default' },
      userId: user.id,
      actor: { kind: 'user' as const, id: user.id },
      credential: { kind: 'session' as const, id: user.id, expiresAt: null },
      role: 'owner' as const,
    };
    // Written past the runtime's write path: nothing is published.
    const graph = createGraphService({
      db: t.database.db,
      now: t.runtime.now,
      bounds: { maxRows: 1_000, maxBytes: 4 << 20 },
    });
    await graph.createEntities(auth, [{ name: 'late-1', type: 'x' }], { existing: 'reject' });
    await graph.createEntities(auth, [{ name: 'late-2', type: 'x' }], { existing: 'reject' });
    // …then one that is published: the client still gets all three, in order.
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'last', type: 'x' } });
    await socket.next((m) => m.payload.name === 'last');
    expect(socket.ofType('entity_created').map((m) => m.payload.name)).toEqual([
      'first',
      'late-1',
      'late-2',
      'last',
    ]);
  });

  it('accepts account API keys as well as personal keys', async () => {
    const { call } = await account();
    const key = (await call({ method: 'POST', url: '/api/keys', payload: { name: 'ws' } })).json()
      .apiKey;
    const socket = await subscribed(key);
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'viaKey', type: 'x' } });
    expect((await socket.next((m) => m.type === 'entity_created')).payload.name).toBe('viaKey');
  });
});
