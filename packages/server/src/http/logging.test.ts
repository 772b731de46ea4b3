import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { createTestDatabase, signUp, testConfig } from '../test/harness.js';
import type { DatabaseHandle } from '../db/connection.js';

// What the server writes to its log while it answers requests: nothing per
// request by default, one line per request at LOG_LEVEL=debug.

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function serverLoggingAt(level: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const database: DatabaseHandle = await createTestDatabase();
  opened.push(database);
  const config = testConfig({ LOG_LEVEL: level, NODE_ENV: 'production' });
  const runtime: Runtime = await createRuntime(config, { database });
  opened.push(runtime);
  const app = await buildApp({ config, runtime, logDestination: sink });
  opened.push(app);
  await app.ready();
  return { app, lines };
}

async function browse(app: Awaited<ReturnType<typeof serverLoggingAt>>['app']) {
  const { token } = await signUp(app);
  const headers = { authorization: `Bearer ${token}` };
  await app.inject({ method: 'GET', url: '/healthz' });
  await app.inject({ method: 'GET', url: '/api/entities?limit=5', headers });
  await app.inject({ method: 'GET', url: '/api/entities' });
  await app.inject({ method: 'GET', url: '/api/nowhere', headers });
}

describe('request logging', () => {
  it('writes nothing for answered requests at the default level', async () => {
    const { app, lines } = await serverLoggingAt('info');
    await browse(app);
    expect(lines).toEqual([]);
  });

  it('writes one line per request at LOG_LEVEL=debug', async () => {
    const { app, lines } = await serverLoggingAt('debug');
    await browse(app);
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual([
      expect.stringMatching(/^POST \/auth\/register 201 \d+ ms$/),
      expect.stringMatching(/^GET \/healthz 200 \d+ ms$/),
      expect.stringMatching(/^GET \/api\/entities\?limit=5 200 \d+ ms$/),
      expect.stringMatching(/^GET \/api\/entities 401 \d+ ms$/),
      expect.stringMatching(/^GET \/api\/nowhere 404 \d+ ms$/),
    ]);
  });
});
