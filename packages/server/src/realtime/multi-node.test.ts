import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocket } from '../test/ws-client.js';

// Two real server processes on one PostgreSQL and one Redis: a write on one
// node reaches a subscriber on the other. Runs where both are configured (CI).
const databaseServer = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const main = fileURLToPath(new URL('../main.ts', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startNode(databaseUrl: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [tsx, main, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 150; attempt++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, process: child };
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error('server did not start');
}

describe.skipIf(!databaseServer || !redisUrl)(
  'realtime across two nodes',
  { timeout: 120_000 },
  () => {
    const name = `engram_test_${randomUUID().replaceAll('-', '')}`;
    const nodes: { url: string; process: ChildProcess }[] = [];

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: databaseServer });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const url = new URL(databaseServer!);
      url.pathname = `/${name}`;
      // One node first, so it runs the migrations; then the second.
      nodes.push(await startNode(url.toString()));
      nodes.push(await startNode(url.toString()));
    }, 90_000);

    afterAll(async () => {
      for (const node of nodes) node.process.kill('SIGTERM');
      await Promise.all(
        nodes.map((node) => new Promise((resolve) => node.process.once('exit', resolve))),
      );
      const admin = new pg.Client({ connectionString: databaseServer });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });

    it('delivers a write on node A to a subscriber on node B', async () => {
      const [a, b] = nodes;
      const registered = await fetch(`${a!.url}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `${randomUUID()}@example.com`,
          password: 'Password123',
          firstName: 'Multi',
          lastName: 'Node',
        }),
      });
      const { token, user } = (await registered.json()) as {
        token: string;
        user: { apiKey: string };
      };

      const socket = await TestSocket.open(b!.url, user.apiKey);
      socket.send('subscribe_to_graph_changes');
      await socket.next((m) => m.type === 'subscribed');

      const created = await fetch(`${a!.url}/api/entities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: 'cross-node', type: 'test' }),
      });
      expect(created.status).toBe(201);
      const event = await socket.next((m) => m.type === 'entity_created');
      expect(event.payload.name).toBe('cross-node');
      socket.close();
    });
  },
);
