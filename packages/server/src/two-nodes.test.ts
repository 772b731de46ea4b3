import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectEra, eventually, type EraClient } from './test/mcp-client.js';
import { startServerProcess, type ServerProcess } from './test/server-process.js';
import { TestSocket } from './test/ws-client.js';

// Two real server processes ("nodes") on one PostgreSQL and one Redis, as
// behind a load balancer: MCP clients of both eras, and realtime sockets, on
// different nodes from the writer. Runs where both are configured (CI).
const databaseServer = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const GRAPH = 'memory://knowledge-graph';

function startNode(databaseUrl: string): Promise<ServerProcess> {
  return startServerProcess({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  });
}

async function register(node: ServerProcess) {
  const response = await fetch(`${node.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `${randomUUID()}@example.com`,
      password: 'Password123',
      firstName: 'Two',
      lastName: 'Nodes',
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; user: { apiKey: string } };
}

describe.skipIf(!databaseServer || !redisUrl)(
  'two nodes: MCP and realtime',
  { timeout: 120_000 },
  () => {
    const name = `engram_test_${randomUUID().replaceAll('-', '')}`;
    const nodes: ServerProcess[] = [];
    const clients: EraClient[] = [];
    const sockets: TestSocket[] = [];

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
      for (const socket of sockets) socket.close();
      await Promise.allSettled(clients.map((client) => client.close()));
      for (const node of nodes) node.process.kill('SIGTERM');
      await Promise.all(
        nodes.map((node) => new Promise((resolve) => node.process.once('exit', resolve))),
      );
      const admin = new pg.Client({ connectionString: databaseServer });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });

    it('a REST write on node B reaches its account on node A (both eras, sockets once each) and no other account', async () => {
      const [a, b] = nodes as [ServerProcess, ServerProcess];
      const owner = await register(a);
      const stranger = await register(b);

      // The 2026 era is stateless: the listener on A, the writer's account on B.
      const modernOnA = await connectEra('modern', a.url, owner.user.apiKey);
      // The 2025 era keeps its session on the node it opened it on.
      const legacyOnB = await connectEra('legacy', b.url, owner.user.apiKey);
      const strangerOnA = await connectEra('modern', a.url, stranger.user.apiKey);
      const strangerOnB = await connectEra('legacy', b.url, stranger.user.apiKey);
      clients.push(modernOnA, legacyOnB, strangerOnA, strangerOnB);
      const heard = {
        modernOnA: await modernOnA.watch(GRAPH),
        legacyOnB: await legacyOnB.watch(GRAPH),
        strangerOnA: await strangerOnA.watch(GRAPH),
        strangerOnB: await strangerOnB.watch(GRAPH),
      };

      const socketOnA = await TestSocket.open(a.url, owner.user.apiKey);
      const socketOnB = await TestSocket.open(b.url, owner.user.apiKey);
      sockets.push(socketOnA, socketOnB);
      for (const socket of [socketOnA, socketOnB]) {
        socket.send('subscribe_to_graph_changes');
        await socket.next((m) => m.type === 'subscribed');
      }

      const names = ['first', 'second', 'third'];
      for (const entity of names) {
        const created = await fetch(`${b.url}/api/entities`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${owner.token}`,
          },
          body: JSON.stringify({ name: entity, type: 'cross-node' }),
        });
        expect(created.status).toBe(201);
      }

      await eventually(() => heard.modernOnA.updates.length > 0, 10_000, 'the listener on node A');
      await eventually(() => heard.legacyOnB.updates.length > 0, 10_000, 'the session on node B');
      expect(heard.modernOnA.updates.every((uri) => uri === GRAPH)).toBe(true);

      // The 2025-era client keeps working on its node, and sees the same graph.
      const graph = await callTool<{ entities: { name: string }[] }>(legacyOnB, 'open_nodes', {
        names,
      });
      expect(graph.entities.map((entity) => entity.name)).toEqual(names);
      // The stateless client reads the same graph from the other node.
      const fromA = await callTool<{ entities: { name: string }[] }>(modernOnA, 'search_nodes', {
        query: 'cross-node',
      });
      expect(fromA.entities.map((entity) => entity.name).sort()).toEqual([...names].sort());

      // Each socket gets each event once, whichever node it is on.
      for (const socket of [socketOnA, socketOnB]) {
        await eventually(
          () => socket.messages.filter((m) => m.type === 'entity_created').length >= names.length,
          10_000,
          'every event on the socket',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const socket of [socketOnA, socketOnB]) {
        const created = socket.messages
          .filter((m) => m.type === 'entity_created')
          .map((m) => (m.payload as { name: string }).name);
        expect(created).toEqual(names);
      }

      // Another account's listeners heard nothing, on either node, in either era.
      expect(heard.strangerOnA.updates).toEqual([]);
      expect(heard.strangerOnB.updates).toEqual([]);
    });
  },
);
