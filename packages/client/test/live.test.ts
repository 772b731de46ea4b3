import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engram, type EngramOptions, type GraphEvent, type LiveEvent } from '../src/index.js';
import { clientFor, newAccount, startServer, type TestServer } from './server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** `ws`, recording each socket opened and every message the client sent on it. */
function recordingWebSocket() {
  const sockets: { socket: WebSocket; sent: unknown[] }[] = [];
  class Recording extends WebSocket {
    readonly record = { socket: this as WebSocket, sent: [] as unknown[] };
    constructor(url: string) {
      super(url);
      sockets.push(this.record);
    }
    override send(data: string): void {
      this.record.sent.push(JSON.parse(data));
      super.send(data);
    }
  }
  return { WebSocket: Recording as unknown as EngramOptions['WebSocket'], sockets };
}

/** Reads the feed until `count` events came (or fails after `ms`). */
async function take(feed: AsyncIterator<LiveEvent>, count: number, ms = 10_000) {
  const events: LiveEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`only ${events.length} of ${count} events in ${ms} ms`)),
      ms,
    );
  });
  const read = async () => {
    while (events.length < count) {
      const next = await feed.next();
      if (next.done) break;
      events.push(next.value);
    }
    return events;
  };
  try {
    return await Promise.race([read(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

async function subscribed(record: { sent: unknown[] }) {
  // The gateway answers the subscription after any replay: give it the time to be asked.
  await until(() => record.sent.length > 0);
  await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('live()', () => {
  it('receives events, and a new feed resumes from lastSeq', async () => {
    const recorder = recordingWebSocket();
    const engram: Engram = clientFor(server, (await newAccount(server)).apiKey, {
      WebSocket: recorder.WebSocket,
    });
    const feed = engram.live()[Symbol.asyncIterator]();
    const first = take(feed, 1);
    await until(() => recorder.sockets.length === 1);
    await subscribed(recorder.sockets[0]!);
    const ada = await engram.entities.create({ name: 'Ada', type: 'person' });
    const [created] = (await first) as GraphEvent[];
    expect(created).toMatchObject({
      type: 'entity_created',
      space: 'default',
      payload: { entityId: ada.id, name: 'Ada' },
    });
    expect(created!.seq).toEqual(expect.any(Number));
    await feed.return!();

    // Missed while no feed was open: a feed from that seq gets it first.
    await engram.entities.addObservations(ada.id, ['Wrote the first program']);
    const resumed = engram.live({ lastSeq: created!.seq })[Symbol.asyncIterator]();
    const [missed] = (await take(resumed, 1)) as GraphEvent[];
    expect(missed).toMatchObject({ type: 'observation_added', payload: { entityId: ada.id } });
    expect(missed!.seq).toBeGreaterThan(created!.seq);
    await resumed.return!();
  });

  it('reconnects by itself after the connection drops, resuming after the last seq', async () => {
    const recorder = recordingWebSocket();
    const engram = clientFor(server, (await newAccount(server)).apiKey, {
      WebSocket: recorder.WebSocket,
    });
    const feed = engram.live({ reconnectDelayMs: 1_000 })[Symbol.asyncIterator]();
    const first = take(feed, 1);
    await until(() => recorder.sockets.length === 1);
    await subscribed(recorder.sockets[0]!);
    await engram.entities.create({ name: 'Before', type: 'note' });
    const [before] = (await first) as GraphEvent[];

    // The connection drops; a change happens before the client is back.
    recorder.sockets[0]!.socket.terminate();
    await engram.entities.create({ name: 'While away', type: 'note' });
    const [away] = (await take(feed, 1)) as GraphEvent[];
    expect(away).toMatchObject({ type: 'entity_created', payload: { name: 'While away' } });
    expect(recorder.sockets).toHaveLength(2);
    expect(recorder.sockets[1]!.sent[0]).toEqual({
      type: 'subscribe_to_graph_changes',
      payload: { lastSeq: before!.seq },
    });

    // And it goes on live.
    const next = take(feed, 1);
    await engram.entities.create({ name: 'After', type: 'note' });
    expect((await next)[0]).toMatchObject({ payload: { name: 'After' } });
    await feed.return!();
  });

  it('says resync_required when it dropped before any event to resume from', async () => {
    const recorder = recordingWebSocket();
    const engram = clientFor(server, (await newAccount(server)).apiKey, {
      WebSocket: recorder.WebSocket,
    });
    const feed = engram.live({ reconnectDelayMs: 50 })[Symbol.asyncIterator]();
    const first = take(feed, 1);
    await until(() => recorder.sockets.length === 1);
    await subscribed(recorder.sockets[0]!);
    recorder.sockets[0]!.socket.terminate();
    expect((await first)[0]).toEqual({
      type: 'resync_required',
      lastSeq: 0,
      reason: 'no_position',
    });
    await feed.return!();
  });

  it('ends when its signal aborts or when it is closed', async () => {
    const engram = clientFor(server, (await newAccount(server)).apiKey);
    const controller = new AbortController();
    const feed = engram.live({ signal: controller.signal })[Symbol.asyncIterator]();
    const pending = feed.next();
    controller.abort();
    expect(await pending).toEqual({ value: undefined, done: true });

    const closable = engram.live();
    const reading = closable[Symbol.asyncIterator]().next();
    closable.close();
    expect((await reading).done).toBe(true);
  });

  it('ends with an EngramError 401 for a bad key (on Node 20, through the `ws` peer)', async () => {
    // No WebSocket given: the global one where there is one, else the optional peer `ws`.
    const engram = new Engram({ url: server.url, apiKey: 'eng_key_nope' });
    const feed = engram.live()[Symbol.asyncIterator]();
    await expect(feed.next()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
