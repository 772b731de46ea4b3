import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../db/connection.js';
import { createRuntime } from '../runtime.js';
import { testConfig } from '../test/harness.js';
import { callTool, connectMcp } from '../test/mcp-client.js';

// Writers over REST and MCP at full speed; the server is killed with SIGKILL
// mid-load and restarted on the same data. Every acknowledged write must be
// there, and nothing half-written: no entity without its observations, no
// relation to nothing, no counter out of step, no gap in the change log.

// tsx as a loader in the server's own process, so SIGKILL reaches the server itself.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
const main = fileURLToPath(new URL('../main.ts', import.meta.url));
const serverUrl = process.env.TEST_DATABASE_URL;

let dataDir = '';
let databaseUrl = '';
let databaseName = '';
let apiKey = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', tsx, main, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      LOG_LEVEL: 'error',
      NODE_ENV: 'production',
      WEB_DIST_DIR: join(dataDir, 'no-web-app'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 900; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { child, base };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

interface Acknowledged {
  entities: Map<string, number>; // name → observations written with it
  relations: Set<string>; // "from|to|type"
}

/** Creates entities (2 observations each) and relations over REST until stopped; records what was acknowledged. */
async function restWriter(base: string, prefix: string, ack: Acknowledged, running: () => boolean) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  let previous: { id: string; name: string } | undefined;
  for (let i = 0; running(); i++) {
    try {
      const name = `${prefix}-${i}`;
      const created = await fetch(`${base}/api/entities`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name, type: 'crash', metadata: { i }, observations: ['a', 'b'] }),
      });
      if (created.status !== 201) continue;
      ack.entities.set(name, 2);
      const current = { id: ((await created.json()) as { id: string }).id, name };
      if (previous) {
        const related = await fetch(`${base}/api/relations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ fromEntityId: previous.id, toEntityId: current.id, type: 'next' }),
        });
        if (related.status === 201) ack.relations.add(`${previous.name}|${name}|next`);
      }
      previous = current;
    } catch {
      // The server went away mid-request: that write was never acknowledged.
    }
  }
}

/** Creates batches of entities and relations over MCP until the server is killed. */
async function mcpWriter(base: string, ack: Acknowledged, killed: AbortSignal) {
  const client = await connectMcp(base, apiKey);
  // A request cut by the kill is abandoned at once instead of waiting out the client's timeout.
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { signal: killed });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  };
  try {
    for (let batch = 0; !killed.aborted; batch++) {
      const names = Array.from({ length: 20 }, (_, i) => `mcp-${batch}-${i}`);
      try {
        await call('create_entities', {
          entities: names.map((name) => ({
            name,
            entityType: 'crash',
            observations: [`${name} one`, `${name} two`],
          })),
        });
        for (const name of names) ack.entities.set(name, 2);
        const relations = names
          .slice(1)
          .map((name, i) => ({ from: names[i]!, to: name, relationType: 'follows' }));
        await call('create_relations', { relations });
        for (const r of relations) ack.relations.add(`${r.from}|${r.to}|follows`);
      } catch {
        return; // the server was killed
      }
    }
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function openData(): Promise<DatabaseHandle> {
  return databaseUrl ? openDatabase({ databaseUrl, dataDir: '' }) : openDatabase({ dataDir });
}

describe('a server killed mid-load', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-crash-'));
    if (serverUrl) {
      databaseName = `engram_crash_${randomUUID().replaceAll('-', '')}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${databaseName}`);
      await admin.end();
      const url = new URL(serverUrl);
      url.pathname = `/${databaseName}`;
      databaseUrl = url.toString();
    }
    const runtime = await createRuntime(
      testConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }),
    );
    try {
      const { user } = await runtime.auth.register(
        { email: 'crash@example.com', password: 'Password123', firstName: 'C', lastName: 'R' },
        '127.0.0.1',
      );
      apiKey = user.apiKey ?? '';
      // A plan with room for everything the writers manage in a few seconds.
      await runtime.database.db.updateTable('subscriptions').set({ plan_id: 'team' }).execute();
    } finally {
      await runtime.close();
    }
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
    if (databaseName && serverUrl) {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${databaseName} with (force)`);
      await admin.end();
    }
  });

  it('keeps every acknowledged write and nothing half-written', async () => {
    const ack: Acknowledged = { entities: new Map(), relations: new Set() };
    const first = await startServer();
    const killed = new AbortController();
    const running = () => !killed.signal.aborted;
    const writers = [
      restWriter(first.base, 'rest-a', ack, running),
      restWriter(first.base, 'rest-b', ack, running),
      mcpWriter(first.base, ack, killed.signal),
    ];
    // Kill once the writers are well into their work.
    const deadline = Date.now() + 60_000;
    while (ack.entities.size < 300 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stopped(first.child, 'SIGKILL');
    killed.abort();
    await Promise.all(writers);
    expect(ack.entities.size).toBeGreaterThanOrEqual(300);

    // Restarts on the same data and answers for everything acknowledged.
    const second = await startServer();
    try {
      const client = await connectMcp(second.base, apiKey);
      try {
        const names = [...ack.entities.keys()];
        for (let i = 0; i < names.length; i += 200) {
          const found = await callTool<{
            entities: { name: string; observations: string[] }[];
            relations: { from: string; to: string; relationType: string }[];
          }>(client, 'open_nodes', { names: names.slice(i, i + 200) });
          const byName = new Map(found.entities.map((entity) => [entity.name, entity]));
          for (const name of names.slice(i, i + 200)) {
            expect(byName.get(name)?.observations.length, name).toBe(ack.entities.get(name));
          }
          for (const relation of found.relations) {
            expect(byName.has(relation.from) || byName.has(relation.to)).toBe(true);
          }
        }
      } finally {
        await client.close();
      }
    } finally {
      await stopped(second.child, 'SIGTERM');
    }

    // Nothing half-written, read straight from the database.
    const handle = await openData();
    try {
      const db = handle.db;
      const entities = await db.selectFrom('entities').select(['name', 'id']).execute();
      const byId = new Map<string, string>(entities.map((entity) => [entity.id, entity.name]));
      const relations = await db
        .selectFrom('relations')
        .select(['from_id', 'to_id', 'type'])
        .execute();
      const stored = new Set(
        relations.map((r) => `${byId.get(r.from_id)}|${byId.get(r.to_id)}|${r.type}`),
      );
      for (const relation of ack.relations) expect(stored.has(relation), relation).toBe(true);

      // Every entity has exactly the observations it was created with, and its counters agree.
      const counters = await handle.withSession((session) =>
        session.query<{
          name: string;
          observations: number;
          counted: number;
          degree: number;
          edges: number;
        }>(
          `select e.name, e.observations_count as counted,
                  coalesce((select d.degree from entity_degrees d where d.entity_id = e.id), 0) as degree,
                  (select count(*)::int from observations o where o.entity_id = e.id) as observations,
                  (select count(*)::int from relations r where r.from_id = e.id or r.to_id = e.id) as edges
           from entities e`,
        ),
      );
      for (const row of counters) {
        expect(row.observations, row.name).toBe(2);
        expect(row.counted, row.name).toBe(row.observations);
        expect(row.degree, row.name).toBe(row.edges);
      }

      // The change log has no gap and matches the account's sequence.
      const log = await handle.withSession((session) =>
        session.query<{ events: number; first: number; last: number; account_seq: number }>(
          `select count(*)::int as events, min(seq)::int as first, max(seq)::int as last,
                  (select event_seq::int from accounts where id = g.account_id) as account_seq
           from graph_events g group by account_id`,
        ),
      );
      expect(log).toHaveLength(1);
      expect(log[0]!.first).toBe(1);
      expect(log[0]!.last).toBe(log[0]!.events);
      expect(log[0]!.account_seq).toBe(log[0]!.last);
      // One event per entity created and per relation created.
      expect(log[0]!.events).toBe(entities.length + relations.length);
    } finally {
      await handle.close();
    }
  });
});
