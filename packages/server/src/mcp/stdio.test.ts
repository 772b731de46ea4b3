import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, eventually, MODERN_REVISION } from '../test/mcp-client.js';
import { engramCommand, startServerProcess, type ServerProcess } from '../test/server-process.js';

// `engram mcp` as a real child process on a real data folder (embedded
// PGlite): both protocol eras on its own database, and both eras relayed to
// a running `engram serve` that owns the folder. The PostgreSQL run skips it
// (there is no folder to own there).
const GRAPH = 'memory://knowledge-graph';

let dataDir: string;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

function stdioParams(apiKey: string) {
  return {
    command: process.execPath,
    args: [...engramCommand, 'mcp'],
    env: env({ ENGRAM_API_KEY: apiKey }),
    stderr: 'ignore' as const,
  };
}

async function modernStdio(apiKey: string) {
  const client = new ModernClient(
    { name: 'stdio-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new ModernStdio(stdioParams(apiKey)));
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updates.push(n.params.uri);
  });
  return { client, updates };
}

async function legacyStdio(apiKey: string) {
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport(stdioParams(apiKey)));
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  return { client, updates };
}

function startServer(): Promise<ServerProcess> {
  return startServerProcess(env({ LOG_LEVEL: 'warn' }));
}

async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe.skipIf(process.env.TEST_DATABASE_URL)('engram mcp (stdio)', { timeout: 300_000 }, () => {
  let server: ServerProcess | undefined;
  let apiKey: string;
  let token: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-stdio-'));
    server = await startServer();
    const registered = await fetch(`${server.url}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'stdio@example.com',
        password: 'Password123',
        firstName: 'Std',
        lastName: 'Io',
      }),
    });
    ({
      token,
      user: { apiKey },
    } = (await registered.json()) as { token: string; user: { apiKey: string } });
  }, 120_000);

  afterAll(async () => {
    if (server) await stop(server.process);
    await rm(dataDir, { recursive: true, force: true });
  });

  const restCreate = (name: string) =>
    fetch(`${server!.url}/api/entities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name, type: 'rest' }),
    });

  it('while the server owns the data folder, relays a 2026-era client to its /mcp', async () => {
    expect(existsSync(join(dataDir, 'engram.server.json'))).toBe(true);
    const { client, updates } = await modernStdio(apiKey);
    try {
      await callTool(client, 'create_entities', {
        entities: [{ name: 'ViaBridge', entityType: 'stdio', observations: ['modern'] }],
      });
      const rest = await fetch(`${server!.url}/api/entities?query=ViaBridge`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(((await rest.json()) as { entities: { name: string }[] }).entities[0]!.name).toBe(
        'ViaBridge',
      );
      const subscription = await client.listen({ resourceSubscriptions: [GRAPH] });
      expect((await restCreate('HeardOverBridge')).status).toBe(201);
      await eventually(() => updates.includes(GRAPH), 10_000, 'an update over the bridge');
      await subscription.close();
    } finally {
      await client.close();
    }
  });

  it('relays a 2025-era client too, with its session and subscriptions', async () => {
    const { client, updates } = await legacyStdio(apiKey);
    try {
      const graph = await callTool<{ entities: { name: string }[] }>(client, 'open_nodes', {
        names: ['ViaBridge'],
      });
      expect(graph.entities.map((entity) => entity.name)).toEqual(['ViaBridge']);
      await client.subscribeResource({ uri: GRAPH });
      // The server-to-client GET stream opens just after the handshake.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await restCreate('HeardBy2025')).status).toBe(201);
      await eventually(() => updates.includes(GRAPH), 10_000, 'an update over the bridge');
    } finally {
      await client.close();
    }
  });

  it('relays a refused key as a clear error', async () => {
    const { client } = await modernStdio('eng_key_wrong').catch((error: unknown) => ({
      client: undefined,
      error,
    }));
    // The bridge answers the discover probe with the server's 401 as a JSON-RPC error.
    expect(client).toBeUndefined();
  });

  it('without a server, opens the database itself and serves both eras', async () => {
    await stop(server!.process);
    server = undefined;
    expect(existsSync(join(dataDir, 'engram.server.json'))).toBe(false);

    const modern = await modernStdio(apiKey);
    try {
      const subscription = await modern.client.listen({ resourceSubscriptions: [GRAPH] });
      await callTool(modern.client, 'create_entities', {
        entities: [{ name: 'Direct', entityType: 'stdio', observations: [] }],
      });
      await eventually(() => modern.updates.includes(GRAPH), 10_000, 'a pushed update');
      await subscription.close();
    } finally {
      await modern.client.close();
    }

    const legacy = await legacyStdio(apiKey);
    try {
      await legacy.client.subscribeResource({ uri: GRAPH });
      await callTool(legacy.client, 'add_observations', {
        observations: [{ entityName: 'Direct', contents: ['2025'] }],
      });
      await eventually(() => legacy.updates.includes(GRAPH), 10_000, 'a subscribed update');
      const graph = await callTool<{ entities: { name: string }[] }>(legacy.client, 'read_graph');
      expect(graph.entities.map((entity) => entity.name)).toEqual(
        expect.arrayContaining(['ViaBridge', 'HeardOverBridge', 'HeardBy2025', 'Direct']),
      );
    } finally {
      await legacy.client.close();
    }
  });
});
