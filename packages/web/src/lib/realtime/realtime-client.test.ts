import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '@/test/fake-websocket';
import type { GraphEvent } from './messages';
import { RealtimeClient, realtimeUrl, type RealtimeClientOptions } from './realtime-client';

const logger = { warn: vi.fn(), error: vi.fn() };

/** An entity change's payload in the shared `graphChange` shape. */
const entity = (entityId: string, name = entityId.toUpperCase()) => ({
  entityId,
  id: entityId,
  name,
  type: 'person',
});

function createClient(options: Partial<RealtimeClientOptions> = {}) {
  return new RealtimeClient({
    url: (key) => `ws://engram.test/ws/connect?api_key=${key}`,
    createSocket: (url) => new FakeWebSocket(url),
    logger,
    ...options,
  });
}

/** A client connected with `key` and confirmed by the gateway. */
function connected(key = 'key-1') {
  const client = createClient();
  client.setApiKey(key);
  FakeWebSocket.latest.accept();
  return client;
}

beforeEach(() => {
  vi.useFakeTimers();
  logger.warn.mockReset();
  logger.error.mockReset();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RealtimeClient: connecting', () => {
  it('stays idle without a key and connects with one', () => {
    const client = createClient();
    expect(client.getSnapshot()).toMatchObject({ status: 'disconnected', enabled: false });
    expect(FakeWebSocket.instances).toHaveLength(0);

    client.setApiKey('key-1');
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(FakeWebSocket.latest.url).toBe('ws://engram.test/ws/connect?api_key=key-1');
    expect(client.getSnapshot()).toMatchObject({ status: 'connecting', enabled: true });
  });

  it('is Connected only once the gateway accepts the key, then subscribes to graph changes', () => {
    const client = createClient();
    client.setApiKey('key-1');
    const socket = FakeWebSocket.latest;
    socket.open();
    expect(client.getSnapshot().status).toBe('connecting');

    socket.receive({ type: 'connection_established', payload: { accountId: 'account-1' } });
    expect(client.getSnapshot().status).toBe('connected');
    expect(socket.sent).toEqual([
      {
        id: expect.any(String) as string,
        type: 'subscribe_to_graph_changes',
        payload: {},
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      },
    ]);
  });

  it('notifies listeners on every status change', () => {
    const client = createClient();
    const listener = vi.fn();
    client.subscribe(listener);
    client.setApiKey('key-1');
    FakeWebSocket.latest.accept();
    expect(listener).toHaveBeenCalledTimes(2);
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('builds a same-origin ws or wss address with the key encoded', () => {
    expect(realtimeUrl('k y', { protocol: 'http:', host: 'localhost:5173' })).toBe(
      'ws://localhost:5173/ws/connect?api_key=k%20y',
    );
    expect(realtimeUrl('key', { protocol: 'https:', host: 'engram.dev' })).toBe(
      'wss://engram.dev/ws/connect?api_key=key',
    );
  });

  it('names the memory space it follows in the address', () => {
    expect(realtimeUrl('key', { protocol: 'https:', host: 'engram.dev' }, 'alpha')).toBe(
      'wss://engram.dev/ws/connect?api_key=key&space=alpha',
    );
  });

  it('names the account it acts in, when one is chosen', () => {
    const host = { protocol: 'https:', host: 'engram.dev' };
    expect(realtimeUrl('key', host, 'alpha', 'acct 1')).toBe(
      'wss://engram.dev/ws/connect?api_key=key&space=alpha&account=acct%201',
    );
    expect(realtimeUrl('key', host, null, null)).toBe('wss://engram.dev/ws/connect?api_key=key');
  });
});

describe('RealtimeClient: memory spaces', () => {
  const spaced = () =>
    createClient({
      url: (key, space) => `ws://engram.test/ws/connect?api_key=${key}&space=${space ?? ''}`,
    });

  it('opens its first socket in the space set before the key', () => {
    const client = spaced();
    client.setSpace('alpha');
    expect(FakeWebSocket.instances).toHaveLength(0);
    client.setApiKey('key-1');
    expect(FakeWebSocket.latest.url).toBe('ws://engram.test/ws/connect?api_key=key-1&space=alpha');
  });

  it('replaces the connection for another space and starts its feed from now', () => {
    const client = spaced();
    client.setSpace('alpha');
    client.setApiKey('key-1');
    const first = FakeWebSocket.latest;
    first.accept();
    first.event('entity_created', 7, entity('a', 'A'));

    client.setSpace('beta');
    expect(first.closedWith).toEqual({ code: 1000, reason: 'Space changed' });
    const second = FakeWebSocket.latest;
    expect(second).not.toBe(first);
    expect(second.url).toBe('ws://engram.test/ws/connect?api_key=key-1&space=beta');
    second.accept();
    // No lastSeq: alpha's position means nothing in beta's feed.
    expect(second.sent.find((m) => m.type === 'subscribe_to_graph_changes')?.payload).toEqual({});

    client.setSpace('beta');
    expect(FakeWebSocket.latest).toBe(second);
  });
});

describe('RealtimeClient: keeping the connection alive', () => {
  it('pings every 30 s while open, and stops when closed', () => {
    connected();
    const socket = FakeWebSocket.latest;
    const pings = () => socket.sentTypes.filter((type) => type === 'ping').length;
    vi.advanceTimersByTime(29_999);
    expect(pings()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(pings()).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(pings()).toBe(3);

    socket.serverClose(1000);
    vi.advanceTimersByTime(120_000);
    expect(pings()).toBe(3);
  });

  it('reconnects every 5 s after an unclean close, at most 10 times, then stays Disconnected', () => {
    const client = createClient();
    client.setApiKey('key-1');
    FakeWebSocket.latest.serverClose(1006);

    for (let attempt = 1; attempt <= 10; attempt++) {
      expect(client.getSnapshot()).toMatchObject({
        status: 'disconnected',
        reconnectAttempt: attempt,
        stopReason: null,
      });
      vi.advanceTimersByTime(4_999);
      expect(FakeWebSocket.instances).toHaveLength(attempt);
      vi.advanceTimersByTime(1);
      expect(FakeWebSocket.instances).toHaveLength(attempt + 1);
      expect(client.getSnapshot()).toMatchObject({
        status: 'connecting',
        reconnectAttempt: attempt,
      });
      FakeWebSocket.latest.serverClose(1006);
    }

    expect(client.getSnapshot()).toMatchObject({
      status: 'disconnected',
      reconnectAttempt: 0,
      stopReason: 'gave-up',
    });
    vi.advanceTimersByTime(10 * 60_000);
    expect(FakeWebSocket.instances).toHaveLength(11);

    // A manual retry starts over.
    client.reconnect();
    expect(FakeWebSocket.instances).toHaveLength(12);
    FakeWebSocket.latest.accept();
    expect(client.getSnapshot()).toMatchObject({ status: 'connected', stopReason: null });
  });

  it('counts attempts afresh after a connection succeeds', () => {
    const client = connected();
    for (let drop = 0; drop < 3; drop++) {
      FakeWebSocket.latest.serverClose(1006);
      vi.advanceTimersByTime(5_000);
      FakeWebSocket.latest.serverClose(1006);
      vi.advanceTimersByTime(5_000);
      expect(client.getSnapshot().reconnectAttempt).toBe(2);
      FakeWebSocket.latest.accept();
      expect(client.getSnapshot()).toMatchObject({ status: 'connected', reconnectAttempt: 0 });
    }
  });

  it('does not reconnect after a normal close (1000)', () => {
    const client = connected();
    FakeWebSocket.latest.serverClose(1000);
    expect(client.getSnapshot()).toMatchObject({ status: 'disconnected', stopReason: 'closed' });
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('does not reconnect when the gateway refuses the key (4401)', () => {
    const client = createClient();
    client.setApiKey('bad-key');
    FakeWebSocket.latest.open();
    FakeWebSocket.latest.serverClose(4401, 'Invalid or expired API key');
    expect(client.getSnapshot()).toMatchObject({
      status: 'disconnected',
      stopReason: 'unauthorized',
    });
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('4401'));
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });
});

describe('RealtimeClient: resuming without gaps', () => {
  it('resubscribes after a reconnect with the last seq seen, and to followed entities', () => {
    const client = connected();
    const unfollow = client.subscribeToEntity('entity-9');
    FakeWebSocket.latest.event('entity_created', 3, entity('a', 'A'));
    FakeWebSocket.latest.event('entity_created', 4, entity('b', 'B'));
    FakeWebSocket.latest.serverClose(1006);
    vi.advanceTimersByTime(5_000);

    const again = FakeWebSocket.latest;
    again.accept();
    expect(again.sent.map(({ type, payload }) => ({ type, payload }))).toEqual([
      { type: 'subscribe_to_graph_changes', payload: { lastSeq: 4 } },
      { type: 'subscribe_to_entity', payload: { entityId: 'entity-9' } },
    ]);
    unfollow();
    expect(again.sent.at(-1)).toMatchObject({
      type: 'unsubscribe_from_entity',
      payload: { entityId: 'entity-9' },
    });
    expect(client.lastEventSeq).toBe(4);
  });

  it('takes the seq the gateway resumed to', () => {
    const client = connected();
    FakeWebSocket.latest.receive({
      type: 'subscribed',
      payload: { channel: 'graph', lastSeq: 41 },
    });
    expect(client.lastEventSeq).toBe(41);
  });

  it('delivers each event once: a repeated or older seq is ignored', () => {
    const client = connected();
    const seen: number[] = [];
    client.onGraphEvent((event: GraphEvent) => seen.push(event.seq!));
    for (const seq of [1, 2, 2, 1, 3, 3, 5]) {
      FakeWebSocket.latest.event('entity_updated', seq, entity('a'));
    }
    expect(seen).toEqual([1, 2, 3, 5]);
  });

  it('dispatches messages by type to handlers', () => {
    const client = connected();
    const pong = vi.fn();
    const created = vi.fn();
    client.on('pong', pong);
    const off = client.on('entity_created', created);
    FakeWebSocket.latest.receive({ type: 'pong' });
    FakeWebSocket.latest.event('entity_created', 1, entity('a', 'A'));
    off();
    FakeWebSocket.latest.event('entity_created', 2, entity('b', 'B'));
    expect(pong).toHaveBeenCalledOnce();
    expect(created).toHaveBeenCalledOnce();
    expect(created.mock.calls[0]![0]).toMatchObject({ type: 'entity_created', seq: 1 });
  });

  it('asks for a reload when the gateway says resync_required', () => {
    const client = connected();
    const resync = vi.fn();
    client.onResync(resync);
    FakeWebSocket.latest.receive({ type: 'resync_required', payload: { lastSeq: 10_000 } });
    expect(resync).toHaveBeenCalledOnce();
  });

  it('asks for a reload after a reconnect that has no seq to resume from', () => {
    const client = connected();
    const resync = vi.fn();
    client.onResync(resync);
    FakeWebSocket.latest.serverClose(1006);
    vi.advanceTimersByTime(5_000);
    FakeWebSocket.latest.accept();
    expect(FakeWebSocket.latest.sent[0]).toMatchObject({
      type: 'subscribe_to_graph_changes',
      payload: {},
    });
    expect(resync).toHaveBeenCalledOnce();
  });

  it('keeps going when a handler throws', () => {
    const client = connected();
    const after = vi.fn();
    client.onGraphEvent(() => {
      throw new Error('boom');
    });
    client.onGraphEvent(after);
    FakeWebSocket.latest.event('entity_deleted', 1, entity('a'));
    expect(after).toHaveBeenCalledOnce();
    expect(logger.error).toHaveBeenCalled();
    expect(client.getSnapshot().status).toBe('connected');
  });
});

describe('RealtimeClient: changing or dropping the key', () => {
  it('replaces the connection when the key changes', () => {
    const client = connected('key-1');
    const first = FakeWebSocket.latest;
    FakeWebSocket.latest.event('entity_created', 7, entity('a', 'A'));

    client.setApiKey('key-2');
    expect(first.closedWith).toEqual({ code: 1000, reason: 'API key changed' });
    expect(FakeWebSocket.instances).toHaveLength(2);
    const second = FakeWebSocket.latest;
    expect(second.url).toContain('api_key=key-2');
    expect(client.getSnapshot().status).toBe('connecting');

    // The old socket finishing its close changes nothing and starts no retry.
    first.finishClose();
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(2);

    // Same account: resume where the old connection stopped.
    second.accept('account-1');
    expect(second.sent[0]).toMatchObject({
      type: 'subscribe_to_graph_changes',
      payload: { lastSeq: 7 },
    });
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('does not resume with another account’s seq', () => {
    const client = connected('key-1');
    FakeWebSocket.latest.event('entity_created', 50, entity('a', 'A'));
    client.setApiKey('key-of-someone-else');
    FakeWebSocket.latest.accept('account-2');
    expect(FakeWebSocket.latest.sent[0]).toMatchObject({
      type: 'subscribe_to_graph_changes',
      payload: {},
    });
    const seen = vi.fn();
    client.onGraphEvent(seen);
    FakeWebSocket.latest.event('entity_created', 1, entity('b', 'B'));
    expect(seen).toHaveBeenCalledOnce();
  });

  it('ignores setting the same key again', () => {
    const client = connected('key-1');
    client.setApiKey('key-1');
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('closes normally without a key: Disconnecting, then Disconnected, no retry', () => {
    const client = connected();
    const socket = FakeWebSocket.latest;
    client.setApiKey(null);
    expect(socket.closedWith?.code).toBe(1000);
    expect(client.getSnapshot()).toMatchObject({ status: 'disconnecting', enabled: false });
    socket.finishClose();
    expect(client.getSnapshot().status).toBe('disconnected');
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('cancels a waiting reconnect when the key goes away', () => {
    const client = connected();
    FakeWebSocket.latest.serverClose(1006);
    client.setApiKey(null);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(client.getSnapshot()).toMatchObject({ status: 'disconnected', reconnectAttempt: 0 });
  });
});

describe('RealtimeClient: sending and receiving', () => {
  it('drops a message sent while disconnected, with a warning', () => {
    const client = createClient();
    expect(client.send('ping')).toBe(false);
    client.setApiKey('key-1');
    expect(client.send('subscribe_to_entity', { entityId: 'a' })).toBe(false);
    expect(FakeWebSocket.latest.sent).toEqual([]);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn).toHaveBeenLastCalledWith(
      'Realtime: not connected, dropped "subscribe_to_entity" message',
    );
  });

  it('sends { id, type, payload, timestamp } with a fresh id each time', () => {
    const client = connected();
    expect(client.send('ping')).toBe(true);
    expect(client.send('ping')).toBe(true);
    const [, first, second] = FakeWebSocket.latest.sent;
    expect(first).toMatchObject({ type: 'ping', payload: {} });
    expect(first!.id).not.toBe(second!.id);
  });

  it('only logs an unparseable message', () => {
    const client = connected();
    const handler = vi.fn();
    client.on('*', handler);
    FakeWebSocket.latest.receive('not json {');
    FakeWebSocket.latest.receive('{"payload":{}}');
    FakeWebSocket.latest.receive('[1,2]');
    expect(logger.error).toHaveBeenCalledTimes(3);
    expect(logger.error).toHaveBeenCalledWith(
      'Realtime: ignored an unparseable message',
      'not json {',
    );
    expect(handler).not.toHaveBeenCalled();
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('reads graph events with the shared union: typed payloads, envelope kept', () => {
    const client = connected();
    const seen: GraphEvent[] = [];
    client.onGraphEvent((event) => seen.push(event));
    FakeWebSocket.latest.event('relation_created', 3, {
      relationId: 'r1',
      id: 'r1',
      fromEntityId: 'a',
      toEntityId: 'b',
      relationType: 'uses',
    });
    expect(seen).toEqual([
      {
        id: 'event-3',
        type: 'relation_created',
        seq: 3,
        timestamp: new Date(0).toISOString(),
        payload: {
          relationId: 'r1',
          id: 'r1',
          fromEntityId: 'a',
          toEntityId: 'b',
          relationType: 'uses',
        },
      },
    ]);
  });

  it('only logs a graph event whose payload is not the shared shape, and still counts its seq', () => {
    const client = connected();
    const graph = vi.fn();
    const byType = vi.fn();
    client.onGraphEvent(graph);
    client.on('entity_created', byType);
    FakeWebSocket.latest.event('entity_created', 5, { name: 'no id' });
    expect(graph).not.toHaveBeenCalled();
    expect(byType).toHaveBeenCalledOnce();
    expect(logger.error).toHaveBeenCalledWith(
      'Realtime: ignored a malformed graph event',
      expect.stringContaining('"no id"'),
    );
    expect(client.lastEventSeq).toBe(5);
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('logs errors the gateway reports and stays connected', () => {
    const client = connected();
    FakeWebSocket.latest.receive({ type: 'error', payload: { message: 'Invalid message' } });
    expect(logger.warn).toHaveBeenCalledWith('Realtime: server error:', 'Invalid message');
    expect(client.getSnapshot().status).toBe('connected');
  });

  it('subscribes to an entity once per id, whoever asks, and unsubscribes after the last', () => {
    const client = connected();
    const socket = FakeWebSocket.latest;
    const offA = client.subscribeToEntity('e1');
    const offB = client.subscribeToEntity('e1');
    expect(socket.sentTypes.filter((type) => type === 'subscribe_to_entity')).toHaveLength(1);
    offA();
    offA();
    expect(socket.sentTypes).not.toContain('unsubscribe_from_entity');
    offB();
    expect(socket.sentTypes).toContain('unsubscribe_from_entity');
  });

  it('follows an entity chosen while disconnected once connected, without a warning', () => {
    const client = createClient();
    client.subscribeToEntity('e1');
    client.setApiKey('key-1');
    FakeWebSocket.latest.accept();
    expect(FakeWebSocket.latest.sentTypes).toEqual([
      'subscribe_to_graph_changes',
      'subscribe_to_entity',
    ]);
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
