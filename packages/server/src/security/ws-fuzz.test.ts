import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';
import { seededRandom } from '../test/http-assertions.js';
import { TestSocket, type Received } from '../test/ws-client.js';

/**
 * Deterministic fuzzing of /ws/connect: malformed, mistyped and oversized
 * (but under the 64 KB frame limit) messages over real sockets. The server
 * never crashes or fails a socket with 1011, answers every message exactly
 * once and in order (`error` for what it cannot use), keeps serving the same
 * socket, and the account's data is unchanged.
 */

const SEED = 0x0ddba11;
const ROUNDS = 6;
const PER_ROUND = 60;
/** Messages sent before waiting for their answers: well under WS_MAX_QUEUED_MESSAGES. */
const BATCH = 15;

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

const VALID_TYPES = [
  'ping',
  'subscribe_to_entity',
  'unsubscribe_from_entity',
  'subscribe_to_graph_changes',
];
const BAD_TYPES = ['no_such_type', '', 'PING', 'ping\u0000', 'subscribe_to_graph_changes '];
const VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  'not-a-uuid',
  '00000000-0000-4000-8000-000000000000',
  '../../etc/passwd',
  'nul\u0000inside',
  'lone \ud800 surrogate',
  'x'.repeat(30_000),
  'y'.repeat(60_000),
  [],
  {},
  { nested: { deep: [1, { x: null }] } },
  true,
];

type Random = ReturnType<typeof seededRandom>;
/** A message, and the answer it must get when that is known by construction. */
interface Fuzz {
  data: string | Buffer;
  answer: 'error' | 'pong' | 'any';
}

/** The server's frame limit (maxPayload); a bigger frame is refused with 1009, by design. */
const MAX_FRAME_BYTES = 64 * 1024;

function fuzzMessage(random: Random): Fuzz {
  for (;;) {
    const fuzz = anyMessage(random);
    if (Buffer.byteLength(fuzz.data) <= MAX_FRAME_BYTES) return fuzz;
  }
}

function anyMessage(random: Random): Fuzz {
  switch (random.int(8)) {
    case 0: // not JSON, or JSON that is not a message object
      return {
        data: random.pick(['', ' ', '{', '[]', 'null', '"ping"', 'ping', '{"type":', '\u0000']),
        answer: 'error',
      };
    case 1: // binary frame, not UTF-8
      return { data: Buffer.from([0xff, 0x00, 0xfe, random.int(256)]), answer: 'error' };
    case 2: {
      // deeply nested arrays, up to ~50 KB
      const depth = 1 + random.int(25_000);
      return { data: '['.repeat(depth) + ']'.repeat(depth), answer: 'error' };
    }
    case 3: {
      // a ping whose payload nests objects thousands deep (the payload is never read)
      const depth = 1 + random.int(8_000);
      const payload = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      return { data: `{"type":"ping","payload":${payload}}`, answer: 'pong' };
    }
    case 4: {
      const bad = random.chance(0.4);
      const type = random.pick(bad ? BAD_TYPES : VALID_TYPES);
      return {
        data: JSON.stringify({ type, payload: random.pick(VALUES) }),
        answer: bad ? 'error' : type === 'ping' ? 'pong' : 'any',
      };
    }
    case 5:
      return {
        data: JSON.stringify({
          id: random.pick(VALUES),
          type: random.pick(VALID_TYPES.slice(1)),
          payload: { entityId: random.pick(VALUES), lastSeq: random.pick(VALUES) },
          timestamp: random.pick(VALUES),
        }),
        answer: 'any',
      };
    case 6: // a valid message, so the socket's state moves between the broken ones
      return random.pick<Fuzz>([
        { data: '{"type":"ping"}', answer: 'pong' },
        { data: '{"type":"subscribe_to_graph_changes","payload":{"lastSeq":0}}', answer: 'any' },
        { data: '{"type":"subscribe_to_entity","payload":{"entityId":"e"}}', answer: 'any' },
        {
          data: '{"type":"ping","__proto__":{"type":"x","polluted":1},"constructor":{"prototype":{"polluted":1}}}',
          answer: 'pong',
        },
      ]);
    default:
      return { data: JSON.stringify(random.pick(VALUES)), answer: 'error' };
  }
}

/** The answers to the client's messages, in order: everything but events and the greeting. */
function answers(socket: TestSocket): Received[] {
  return socket.messages.filter((m) => m.seq === undefined && m.type !== 'connection_established');
}

/** Waits for `count` answers; fails at once, saying how, if the server closes the socket. */
function answered(socket: TestSocket, count: number): Promise<unknown> {
  return Promise.race([
    socket.next(() => answers(socket).length >= count, 10_000),
    socket.closed.then(({ code, reason }) => {
      throw new Error(`server closed the socket: ${code} ${reason}`);
    }),
  ]);
}

async function snapshot() {
  return {
    entities: (await call({ method: 'GET', url: '/api/entities' })).json(),
    relations: (await call({ method: 'GET', url: '/api/relations' })).json(),
  };
}

describe('fuzz /ws/connect', () => {
  it('answers a few hundred malformed messages one by one, keeps serving and changes nothing', async () => {
    const random = seededRandom(SEED);
    const before = await snapshot();
    for (let round = 0; round < ROUNDS; round++) {
      const socket = await TestSocket.open(base, apiKey);
      const sent: Fuzz[] = [];
      for (let i = 0; i < PER_ROUND; i++) {
        const fuzz = fuzzMessage(random);
        sent.push(fuzz);
        socket.ws.send(fuzz.data);
        if (sent.length % BATCH === 0) await answered(socket, sent.length);
      }
      await answered(socket, sent.length);

      const got = answers(socket);
      expect(got).toHaveLength(sent.length);
      sent.forEach((fuzz, i) => {
        if (fuzz.answer !== 'any')
          expect({ i, type: got[i]!.type }).toEqual({ i, type: fuzz.answer });
      });
      for (const error of socket.ofType('error')) {
        expect(error.payload.message).toEqual(expect.any(String));
      }
      // Still serving on the same socket after all that.
      socket.send('ping');
      await answered(socket, sent.length + 1);
      expect(answers(socket).at(-1)!.type).toBe('pong');
      socket.close();
      expect(await socket.closed).toEqual({ code: 1000, reason: '' });
    }
    expect(await snapshot()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers every message it cannot use with an error message', async () => {
    const socket = await TestSocket.open(base, apiKey);
    const bad = [
      '{',
      JSON.stringify({ type: 'no_such_type', payload: {} }),
      JSON.stringify({ type: 'subscribe_to_entity', payload: { entityId: 42 } }),
      JSON.stringify({ type: 'subscribe_to_entity', payload: { entityId: 'z'.repeat(201) } }),
      JSON.stringify({ type: 'subscribe_to_graph_changes', payload: { lastSeq: -3 } }),
      JSON.stringify({ type: 'subscribe_to_graph_changes', payload: { lastSeq: 2.5 } }),
      JSON.stringify({ type: 'subscribe_to_graph_changes', payload: { lastSeq: 2 ** 60 } }),
      JSON.stringify({ type: 'subscribe_to_graph_changes', payload: { lastSeq: '1' } }),
    ];
    for (const message of bad) socket.ws.send(message);
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');
    expect(answers(socket).map((m) => m.type)).toEqual([...bad.map(() => 'error'), 'pong']);
    socket.close();
    expect(await socket.closed).toEqual({ code: 1000, reason: '' });
  });
});
