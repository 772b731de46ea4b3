import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { textFrame } from './frames.js';
import { FlushScheduler, SocketWriter } from './socket-writer.js';

// Real sockets, no database: what a browser receives when the gateway writes
// ready-made frames straight to the TCP socket.

const servers: WebSocketServer[] = [];
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

/** A server socket wrapped in a SocketWriter, and a client socket connected to it. */
async function pair(options: { raw?: boolean; maxBufferedBytes?: number } = {}) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const scheduler = new FlushScheduler();
  let slow = 0;
  const accepted = new Promise<SocketWriter>((resolve) =>
    server.once('connection', (socket, request) =>
      resolve(
        new SocketWriter(
          socket,
          options.raw === false ? undefined : request.socket,
          scheduler,
          options.maxBufferedBytes ?? 1024 * 1024,
          () => {
            slow += 1;
            socket.close(1013, 'too slow');
          },
        ),
      ),
    ),
  );
  const { port } = server.address() as AddressInfo;
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  clients.push(client);
  const received: string[] = [];
  client.on('message', (data, binary) => {
    expect(binary).toBe(false);
    received.push(data.toString());
  });
  await new Promise((resolve) => client.once('open', resolve));
  return { writer: await accepted, client, received, slowCount: () => slow };
}

async function until(test: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('socket writer', () => {
  for (const raw of [true, false]) {
    it(`delivers frames queued in one turn as separate text messages, in order (${raw ? 'raw socket' : 'ws.send'})`, async () => {
      const { writer, received } = await pair({ raw });
      const texts = [
        JSON.stringify({ id: 'a', type: 'entity_created', payload: {}, timestamp: 't', seq: 1 }),
        'x'.repeat(300), // a 16-bit length
        'é'.repeat(40_000), // multi-byte text past 65,535 bytes: a 64-bit length
        '{}',
      ];
      for (const text of texts) writer.write(textFrame(text));
      await until(() => received.length === texts.length);
      expect(received).toEqual(texts);
    });
  }

  it('writes the same frames to several sockets', async () => {
    const one = await pair();
    const two = await pair();
    const frames = [textFrame('{"n":1}'), textFrame('{"n":2}')];
    for (const frame of frames) {
      one.writer.write(frame);
      two.writer.write(frame);
    }
    await until(() => one.received.length === 2 && two.received.length === 2);
    expect(one.received).toEqual(['{"n":1}', '{"n":2}']);
    expect(two.received).toEqual(one.received);
  });

  it('hands a client that stops reading to tooSlow instead of buffering without bound', async () => {
    const { writer, client, slowCount } = await pair({ maxBufferedBytes: 256 * 1024 });
    client.pause();
    const big = textFrame('y'.repeat(512 * 1024));
    for (let turn = 0; turn < 400 && slowCount() === 0; turn++) {
      writer.write(big);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(slowCount()).toBe(1);
  });
});
