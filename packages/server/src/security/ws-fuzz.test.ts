import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';
import { seededRandom } from '../test/http-assertions.js';
import { TestSocket } from '../test/ws-client.js';

/**
 * Deterministic fuzzing of /ws/connect: malformed, mistyped and oversized
 * messages. The server never crashes or fails a socket with 1011, answers
 * what it cannot use with `error`, keeps serving the same socket, and the
 * account's data is unchanged.
 */

const SEED = 0x0ddba11;
let t: TestApp;
let base: string;
let apiKey: string;
let call: ReturnType<typeof as>;

beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const account = await signUp(t.app);
  apiKey = account.user.apiKey;
  call = as(t.app, account.token);
  await call({
    method: 'POST',
    url: '/api/entities',
    payload: { name: 'steady', type: 'concept', metadata: {}, observations: ['still here'] },
  });
});
afterAll(() => t.close());

const TYPES = [
  'ping',
  'subscribe_to_entity',
  'unsubscribe_from_entity',
  'subscribe_to_graph_changes',
  'no_such_type',
  '',
  'PING',
];
const VALUES: unknown[] = [
  null,
  -1,
  1.5,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  'not-a-uuid',
  '00000000-0000-4000-8000-000000000000',
  'nul\u0000inside',
  'x'.repeat(30_000),
  [],
  {},
  { nested: { deep: [1, { x: null }] } },
  true,
];

type Random = ReturnType<typeof seededRandom>;

function fuzzMessage(random: Random): string | Buffer {
  switch (random.int(6)) {
    case 0:
      return random.pick(['', '{', '[]', 'null', '"ping"', 'ping', '{"type":']);
    case 1:
      return Buffer.from([0xff, 0x00, 0xfe, random.int(256)]);
    case 2: {
      const depth = 1 + random.int(300);
      return '['.repeat(depth) + ']'.repeat(depth);
    }
    case 3:
      return JSON.stringify({ type: random.pick(TYPES), payload: random.pick(VALUES) });
    case 4:
      return JSON.stringify({
        type: random.pick(TYPES),
        payload: { entityId: random.pick(VALUES), lastSeq: random.pick(VALUES) },
      });
    default:
      return JSON.stringify(random.pick(VALUES));
  }
}

async function snapshot() {
  return {
    entities: (await call({ method: 'GET', url: '/api/entities' })).json(),
    relations: (await call({ method: 'GET', url: '/api/relations' })).json(),
  };
}

describe('fuzz /ws/connect', () => {
  it('survives a few hundred malformed messages, keeps serving and changes nothing', async () => {
    const random = seededRandom(SEED);
    const before = await snapshot();
    let closes = 0;
    for (let round = 0; round < 6; round++) {
      const socket = await TestSocket.open(base, apiKey);
      for (let i = 0; i < 60; i++) {
        socket.ws.send(fuzzMessage(random));
        // Stay under the unprocessed-message cap: wait for an answer every few messages.
        if (i % 10 === 9) {
          const answered = socket.messages.length;
          socket.send('ping');
          await socket.next((m) => m.type === 'pong' && socket.messages.indexOf(m) >= answered);
        }
      }
      socket.send('ping');
      await socket.next((m) => m.type === 'pong');
      const errors = socket.ofType('error');
      for (const error of errors) expect(typeof error.payload.message).toBe('string');
      socket.close();
      const closed = await socket.closed;
      if (closed.code !== 1000) closes += 1;
      expect(closed.code).not.toBe(1011);
    }
    expect(closes).toBe(0);
    expect(await snapshot()).toEqual(before);
  });

  it('answers every message it cannot use with an error message', async () => {
    const socket = await TestSocket.open(base, apiKey);
    const bad = [
      '{',
      JSON.stringify({ type: 'no_such_type', payload: {} }),
      JSON.stringify({ type: 'subscribe_to_entity', payload: { entityId: 42 } }),
      JSON.stringify({ type: 'subscribe_to_graph_changes', payload: { lastSeq: -3 } }),
    ];
    for (const message of bad) socket.ws.send(message);
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
    expect(socket.ofType('error')).toHaveLength(bad.length);
    socket.close();
  });
});
