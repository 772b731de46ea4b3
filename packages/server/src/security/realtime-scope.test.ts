import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, setPlan, signUp, type TestApp } from '../test/harness.js';
import { TestSocket } from '../test/ws-client.js';

// The WebSocket applies the same space permissions as REST and MCP (issue 56,
// item 2): a key scoped to one space never reads the default space's change
// log or live events, named or not.

let t: TestApp;
let base: string;
const sockets: TestSocket[] = [];
beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await t.close();
});

async function scopedAccount(permissions: string[]) {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, 'pro');
  const call = as(t.app, token);
  expect(
    (await call({ method: 'POST', url: '/api/spaces', payload: { name: 'Alpha' } })).statusCode,
  ).toBe(201);
  // Something secret in the default space, in its change log from seq 1.
  await call({
    method: 'POST',
    url: '/api/entities',
    payload: { name: 'Default secret', type: 'note', observations: ['the vault code is 1234'] },
  });
  const key = await call({
    method: 'POST',
    url: '/api/keys',
    payload: { name: 'scoped', permissions },
  });
  expect(key.statusCode, key.body).toBe(201);
  return { call, key: key.json<{ apiKey: string }>().apiKey };
}

/** How the server ended the socket, or 'still open' when it kept it (what the attacker got). */
const closedOrOpen = (socket: TestSocket) =>
  Promise.race([
    socket.closed,
    new Promise((resolve) => setTimeout(() => resolve('still open'), 3_000)),
  ]);

async function open(key: string, space?: string) {
  const socket = await TestSocket.open(base, key, {}, space);
  sockets.push(socket);
  return socket;
}

describe('a key scoped to one space, over the WebSocket', () => {
  for (const access of ['read', 'write']) {
    it(`(space:alpha:${access}) is refused the default space when it names no space`, async () => {
      const { key } = await scopedAccount([`space:alpha:${access}`]);
      const socket = await open(key);
      expect(await closedOrOpen(socket)).toEqual({
        code: 1008,
        reason: 'This API key lacks space:default:read',
      });
      expect(socket.messages.map((m) => m.type)).not.toContain('connection_established');
    });
  }

  it('is refused the default space named by ?space= or by a subscribe message', async () => {
    const { call, key } = await scopedAccount(['space:alpha:read']);
    const named = await open(key, 'default');
    expect((await named.closed).reason).toBe('This API key lacks space:default:read');

    const socket = await open(key, 'alpha');
    await socket.next((m) => m.type === 'connection_established');
    socket.send('subscribe_to_graph_changes', { space: 'default', lastSeq: 0 });
    const refused = await socket.next((m) => m.type === 'error');
    expect(JSON.stringify(refused.payload)).toContain('This API key lacks space:default:read');
    // Nothing of the default space arrives, replayed or live, on the space it may read.
    socket.send('subscribe_to_graph_changes', { lastSeq: 0 });
    await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Later secret', type: 'note' },
    });
    await call({
      method: 'POST',
      url: '/api/entities',
      headers: { 'x-engram-space': 'alpha' },
      payload: { name: 'In alpha', type: 'note' },
    });
    await socket.next((m) => m.type === 'entity_created');
    const seen = JSON.stringify(socket.messages);
    expect(seen).not.toContain('secret');
    expect(seen).toContain('In alpha');
  });

  it('still reaches the default space with a key that may read it', async () => {
    const { key } = await scopedAccount(['spaces:*:read']);
    const socket = await open(key);
    const established = await socket.next((m) => m.type === 'connection_established');
    expect(established.payload.space).toBe('default');
  });
});
