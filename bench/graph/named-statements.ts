/**
 * Statements planned once (decision 015), on and off in one process against
 * one database, interleaved in blocks so that a busy or throttled machine
 * slows both sides alike. Through the real HTTP path (app.inject) on a fresh
 * account: create an entity with two observations (the marked batch writes)
 * and read one by id (a marked read); CPU per call of this process (PGlite's
 * worker included) and of PostgreSQL's processes, and wall time.
 *
 *   npx tsx bench/graph/named-statements.ts                 # PGlite
 *   BENCH_DB=postgres npx tsx bench/graph/named-statements.ts
 *
 * "Off" runs the marked statements unnamed, as every statement ran before:
 * the bench switches StatementNames off by wrapping its method, which the
 * server itself never does.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../../packages/server/src/app.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { openDatabase, type DatabaseHandle } from '../../packages/server/src/db/connection.js';
import { StatementNames } from '../../packages/server/src/db/prepared.js';
import { createRuntime } from '../../packages/server/src/runtime.js';
import { cpuBetween, cpuNow, signUpOnTeamPlan } from './bench-account.js';

const kind = process.env.BENCH_DB ?? 'pglite';
if (kind !== 'pglite' && kind !== 'postgres')
  throw new Error('BENCH_DB must be pglite or postgres');
const rounds = Number(process.env.BENCH_ROUNDS ?? 8);
const BLOCK = 50;

let naming = true;
const nameOf = StatementNames.prototype.nameOf;
StatementNames.prototype.nameOf = function (this: StatementNames, text: string) {
  return naming ? nameOf.call(this, text) : undefined;
};

async function open(): Promise<{ handle: DatabaseHandle; cleanup: () => Promise<void> }> {
  if (kind === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'engram-named-'));
    const handle = await openDatabase({ dataDir: join(dir, 'data'), sharedBuffersMb: 32 });
    return { handle, cleanup: () => rm(dir, { recursive: true, force: true }) };
  }
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `engram_bench_named_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  return {
    handle,
    cleanup: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const { handle, cleanup } = await open();
const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'production' });
const runtime = await createRuntime(config, { database: handle });
const app = await buildApp({ config, runtime });
try {
  await app.ready();
  const { token } = await signUpOnTeamPlan(app, handle);
  const headers = { authorization: `Bearer ${token}` };
  const ids: string[] = [];
  const operations: Record<string, () => Promise<void>> = {
    'create entity': async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/entities',
        headers,
        payload: { name: `entity-${ids.length}`, type: 'thing', observations: ['one', 'two'] },
      });
      if (response.statusCode !== 201) throw new Error(`create: ${response.body}`);
      ids.push(response.json<{ id: string }>().id);
    },
    'get by id': async () => {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const response = await app.inject({ method: 'GET', url: `/api/entities/${id}`, headers });
      if (response.statusCode !== 200) throw new Error(`get: ${response.body}`);
    },
  };
  for (let i = 0; i < 300; i++) await operations['create entity']!();

  const totals = new Map<string, { app: number; postgres: number; wall: number; n: number }>();
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 ? ['on', 'off'] : ['off', 'on']) {
      naming = mode === 'on';
      for (const [operation, run] of Object.entries(operations)) {
        for (let i = 0; i < 5; i++) await run();
        const before = cpuNow();
        const started = performance.now();
        for (let i = 0; i < BLOCK; i++) await run();
        const wall = performance.now() - started;
        const cpu = cpuBetween(before, cpuNow());
        const key = `${operation}, named ${mode}`;
        const total = totals.get(key) ?? { app: 0, postgres: 0, wall: 0, n: 0 };
        total.app += cpu.app;
        total.postgres += cpu.postgres;
        total.wall += wall;
        total.n += BLOCK;
        totals.set(key, total);
      }
    }
  }
  console.log(
    `${kind}, ${rounds} rounds of ${BLOCK} calls per side, load ${loadavg()[0]!.toFixed(2)}`,
  );
  for (const [key, total] of [...totals].sort()) {
    const per = (ms: number) => (ms / total.n).toFixed(2).padStart(6);
    console.log(
      `${key.padEnd(24)} CPU/call: app ${per(total.app)} ms, PostgreSQL ${per(total.postgres)} ms; wall ${per(total.wall)} ms`,
    );
  }
} finally {
  await app.close();
  await runtime.close();
  await handle.close();
  await cleanup();
}
