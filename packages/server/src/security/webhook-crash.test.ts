import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test/mcp-client.js';
import { freePort } from '../test/server-process.js';
import { Receiver } from '../test/webhook-receiver.js';

// Webhooks are delivered at least once: a server killed with SIGKILL while it
// is sending, then restarted on the same data, delivers every event of every
// acknowledged write — repeats allowed, losses not — in the change log's order.

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
const main = fileURLToPath(new URL('../main.ts', import.meta.url));

let dataDir = '';
const receiver = new Receiver();

async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', tsx, main, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'error',
      NODE_ENV: 'production',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      WEB_DIST_DIR: join(dataDir, 'no-web-app'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 900; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) {
        return { child, base: `http://127.0.0.1:${port}` };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe('webhooks across a SIGKILL', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-webhook-crash-'));
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers every acknowledged change at least once, in order', async () => {
    const first = await startServer();
    const { base } = first;
    let server = first.child;
    const post = async (path: string, body: unknown, token: string) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const registered = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `${randomUUID()}@example.com`,
        password: 'Password123',
        firstName: 'Kill',
        lastName: 'Nine',
      }),
    });
    const { token } = (await registered.json()) as { token: string };
    // A loopback server lets its owners choose their plan.
    const plan = await post(
      '/api/billing/change-plan',
      { planId: 'pro', priceId: 'price_pro_monthly' },
      token,
    );
    expect(plan.status).toBe(200);
    const endpoint = await post(
      '/api/webhooks',
      { url: receiver.url, events: ['entity_created'] },
      token,
    );
    expect(endpoint.status).toBe(201);

    // Writes until the server is killed, a few deliveries in.
    const acknowledged: string[] = [];
    let running = true;
    const writer = (async () => {
      for (let i = 0; running; i += 1) {
        try {
          const response = await post('/api/entities', { name: `e-${i}`, type: 'crash' }, token);
          if (response.status === 201) acknowledged.push(`e-${i}`);
        } catch {
          // The server went away mid-request: that write was never acknowledged.
        }
      }
    })();
    await eventually(() => receiver.received.length >= 10, 60_000, 'the first deliveries');
    await killed(server);
    running = false;
    await writer;
    const heardBeforeRestart = receiver.received.length;
    expect(acknowledged.length).toBeGreaterThan(heardBeforeRestart);

    // Restarted on the same data (on another port: delivery needs no client).
    server = (await startServer()).child;
    try {
      const heard = () =>
        new Set(receiver.received.map((r) => (r.event.data as { name: string }).name));
      await eventually(
        () => acknowledged.every((name) => heard().has(name)),
        90_000,
        'every acknowledged change delivered',
      );
      // First sends in seq order; a repeat may only be of an event already sent.
      const seqs = receiver.received.map((r) => Number(r.event.id.split('_').at(-1)));
      const firsts = seqs.filter((seq, i) => seqs.indexOf(seq) === i);
      expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    } finally {
      await killed(server);
    }
  });
});
