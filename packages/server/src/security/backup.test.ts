import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { HistoryPage } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/connection.js';
import { engramCommand, startServerProcess, type ServerProcess } from '../test/server-process.js';

/**
 * `engram backup` and `engram restore` (decision 038, docs/deploy.md
 * "Backups") as an operator runs them: real `engram serve` processes, the CLI
 * as child processes, real HTTP. The embedded suite runs by default; the
 * PostgreSQL one when TEST_DATABASE_URL names a server (as CI's second run does).
 */

const databaseServer = process.env.TEST_DATABASE_URL;
const TOKEN_FILE = 'engram.backup-token';
const PASSWORD = 'Password123';

/** The environment of every child: silent, and the database each test names (never the caller's). */
function childEnv(database: { DATA_DIR?: string; DATABASE_URL?: string }, extra = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...database, ...extra };
  if (!database.DATABASE_URL) delete env.DATABASE_URL;
  return env;
}

interface Run {
  code: number;
  stderr: string;
}

/** `engram <args>` in a child process; its exit code and what it said. */
function engram(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...engramCommand, ...args],
      { env, timeout: 240_000 },
      (error, _stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr }),
    );
  });
}

async function stopServer(server: ServerProcess | undefined): Promise<void> {
  const child: ChildProcess | undefined = server?.process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function call(
  url: string,
  credential: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json().catch(() => undefined) };
}

async function ok<T>(
  url: string,
  credential: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const answer = await call(url, credential, method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.json)}`).toBeLessThan(300);
  return answer.json as T;
}

/** What was written before the backup, to look for after the restore. */
interface Written {
  email: string;
  /** A key made on the API Keys screen, and the person's own key (derived from the instance secret). */
  apiKey: string;
  personalKey: string;
  historyEntityId: string;
  webhookUrl: string;
  acknowledged: string[];
}

/**
 * Writes on `url` under load (two agents writing entities one after the
 * other), takes a backup with `backup` while they write, and returns
 * everything acknowledged before the backup was asked for.
 */
async function writeAndBackUpUnderLoad(url: string, backup: () => Promise<Run>): Promise<Written> {
  const email = `backup-${Date.now()}@example.com`;
  const { token } = await ok<{ token: string }>(url, undefined, 'POST', '/auth/register', {
    email,
    password: PASSWORD,
    firstName: 'Back',
    lastName: 'Up',
  });
  // Webhooks and several keys need a paid plan.
  await ok(url, token, 'POST', '/api/billing/change-plan', {
    planId: 'pro',
    priceId: 'price_pro_monthly',
  });
  const { apiKey } = await ok<{ apiKey: string }>(url, token, 'POST', '/api/keys', {
    name: 'backup agent',
  });
  const { apiKey: personalKey } = await ok<{ apiKey: string }>(url, token, 'GET', '/auth/me');
  // An event it never hears: nothing is delivered anywhere during the test.
  const webhookUrl = 'https://example.com/engram-backup-hook';
  await ok(url, token, 'POST', '/api/webhooks', { url: webhookUrl, events: ['relation_deleted'] });
  const entity = await ok<{ id: string }>(url, apiKey, 'POST', '/api/entities', {
    name: 'Kept history',
    type: 'concept',
  });
  await ok(url, apiKey, 'POST', `/api/entities/${entity.id}/observations`, {
    observations: ['was changed before the backup'],
  });

  const acknowledged: string[] = [];
  let writing = true;
  const agent = async (lane: number) => {
    for (let i = 0; writing; i++) {
      const answer = await call(url, apiKey, 'POST', '/api/entities', {
        name: `load-${lane}-${i}`,
        type: 'load',
        observations: [`written by lane ${lane}`],
      });
      expect(answer.status).toBe(201);
      acknowledged.push((answer.json as { id: string }).id);
    }
  };
  const agents = [agent(0), agent(1)];
  try {
    while (acknowledged.length < 60) await new Promise((resolve) => setTimeout(resolve, 50));
    const before = [...acknowledged];
    const run = await backup();
    expect(run.code, run.stderr).toBe(0);
    // The writers really ran beside the backup.
    expect(acknowledged.length).toBeGreaterThan(before.length);
    return {
      email,
      apiKey,
      personalKey,
      historyEntityId: entity.id,
      webhookUrl,
      acknowledged: before,
    };
  } finally {
    writing = false;
    await Promise.all(agents);
  }
}

/** Everything written before the backup, answered by the server on the restored database. */
async function expectRestored(url: string, written: Written): Promise<void> {
  const { token } = await ok<{ token: string }>(url, undefined, 'POST', '/auth/login', {
    email: written.email,
    password: PASSWORD,
  });
  const me = await ok<{ apiKey: string }>(url, token, 'GET', '/auth/me');
  expect(me.apiKey).toBe(written.personalKey);
  expect((await call(url, written.personalKey, 'GET', '/api/entities?limit=1')).status).toBe(200);
  expect((await call(url, written.apiKey, 'GET', '/api/entities?limit=1')).status).toBe(200);

  const missing: string[] = [];
  for (let i = 0; i < written.acknowledged.length; i += 20) {
    const batch = written.acknowledged.slice(i, i + 20);
    const answers = await Promise.all(
      batch.map((id) => call(url, written.apiKey, 'GET', `/api/entities/${id}`)),
    );
    answers.forEach((answer, n) => answer.status !== 200 && missing.push(batch[n]!));
  }
  expect(missing).toEqual([]);

  const history = await ok<HistoryPage>(
    url,
    written.apiKey,
    'GET',
    `/api/entities/${written.historyEntityId}/history`,
  );
  expect(history.changes.map((change) => change.type).sort()).toEqual([
    'entity_created',
    'observation_added',
  ]);
  const hooks = await ok<{ webhooks: { url: string }[] }>(url, token, 'GET', '/api/webhooks');
  expect(hooks.webhooks.map((hook) => hook.url)).toEqual([written.webhookUrl]);
}

/** This machine's address on a network (not loopback), if it has one. */
function networkAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe.skipIf(databaseServer)(
  'engram backup and restore on the embedded database',
  { timeout: 600_000 },
  () => {
    let folder: string;
    let source: ServerProcess | undefined;
    let restored: ServerProcess | undefined;
    const data = (name: string) => join(folder, name);

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'engram-backup-'));
      // On every interface, so a request can come from an address that is not loopback.
      source = await startServerProcess(
        childEnv({ DATA_DIR: data('source') }, { HOST: '0.0.0.0', PLAN_SELF_SERVICE: 'true' }),
      );
    });
    afterAll(async () => {
      await stopServer(source);
      await stopServer(restored);
      await rm(folder, { recursive: true, force: true });
    });

    it('the server writes its backup token into the data folder, readable by its owner only', async () => {
      expect(await modeOf(join(data('source'), TOKEN_FILE))).toBe(0o600);
      // The folder itself too: PGlite writes its files readable by everyone.
      expect(await modeOf(data('source'))).toBe(0o700);
    });

    it('refuses a backup request without the token, with another, through a proxy, or from another address', async () => {
      const token = (await readFile(join(data('source'), TOKEN_FILE), 'utf8')).trim();
      const port = new URL(source!.url).port;
      const ask = async (host: string, headers: Record<string, string>) => {
        const response = await fetch(`http://${host}:${port}/internal/backup`, {
          method: 'POST',
          headers,
        });
        return { status: response.status, body: (await response.json()) as { code: string } };
      };
      expect(await ask('127.0.0.1', {})).toMatchObject({
        status: 401,
        body: { code: 'UNAUTHORIZED' },
      });
      // An account's own credential is no backup token.
      expect(await ask('127.0.0.1', { 'x-engram-backup-token': `${token}x` })).toMatchObject({
        status: 403,
        body: { code: 'FORBIDDEN' },
      });
      expect(
        await ask('127.0.0.1', { 'x-engram-backup-token': token, 'x-forwarded-for': '127.0.0.1' }),
      ).toMatchObject({ status: 403 });
      const address = networkAddress();
      if (!address) {
        console.warn('No network address besides loopback: the non-loopback refusal is not tried.');
        return;
      }
      expect(await ask(address, { 'x-engram-backup-token': token })).toMatchObject({
        status: 403,
        body: { code: 'FORBIDDEN' },
      });
    });

    it('a backup taken from the running server under load restores every acknowledged write', async () => {
      const backupFile = data('live.engram-backup');
      const written = await writeAndBackUpUnderLoad(source!.url, () =>
        engram(['backup', '--output', backupFile], childEnv({ DATA_DIR: data('source') })),
      );
      expect(await modeOf(backupFile)).toBe(0o600);

      const restore = await engram(['restore', backupFile], childEnv({ DATA_DIR: data('copy') }));
      expect(restore.code, restore.stderr).toBe(0);
      // Nothing of the source process came with the copy.
      const copied = await readdir(data('copy'));
      expect(copied).not.toContain(TOKEN_FILE);
      expect(copied).not.toContain('engram.server.json');
      expect(copied.filter((name) => name.startsWith('.engram-'))).toEqual([]);

      restored = await startServerProcess(childEnv({ DATA_DIR: data('copy') }));
      await expectRestored(restored.url, written);
      await stopServer(restored);
    });

    it('refuses to restore into a folder that is not empty, unless --force', async () => {
      const backupFile = data('live.engram-backup');
      await rm(data('occupied'), { recursive: true, force: true });
      await mkdir(data('occupied'));
      await writeFile(join(data('occupied'), 'notes.txt'), 'mine');
      const env = childEnv({ DATA_DIR: data('occupied') });

      const refused = await engram(['restore', backupFile], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('is not empty');
      expect(await readdir(data('occupied'))).toEqual(['notes.txt']);

      const forced = await engram(['restore', '--force', backupFile], env);
      expect(forced.code, forced.stderr).toBe(0);
      const contents = await readdir(data('occupied'));
      expect(contents).toContain('PG_VERSION');
      expect(contents).not.toContain('notes.txt');
    });

    it('backs up a folder no server runs on, and refuses to restore a newer schema', async () => {
      const env = childEnv({ DATA_DIR: data('future') });
      expect((await engram(['migrate'], env)).code).toBe(0);
      // A migration this code does not know, as a later Engram would have left it.
      const database = await openDatabase({ dataDir: data('future') });
      await database.withSession((session) =>
        session.exec("insert into schema_migrations (name) values ('999-from-the-future')"),
      );
      await database.close();
      const backupFile = data('future.engram-backup');
      const backup = await engram(['backup', '--output', backupFile], env);
      expect(backup.code, backup.stderr).toBe(0);
      expect(await modeOf(backupFile)).toBe(0o600);

      const refused = await engram(['restore', backupFile], childEnv({ DATA_DIR: data('older') }));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('999-from-the-future');
      expect(await readdir(data('older')).catch(() => [])).toEqual([]);
    });

    it('says what is wrong with a command it cannot run', async () => {
      const env = childEnv({ DATA_DIR: data('nothing') });
      const noOutput = await engram(['backup'], env);
      expect(noOutput).toMatchObject({ code: 1 });
      expect(noOutput.stderr).toContain('--output');
      const noDatabase = await engram(['backup', '--output', data('none.bak')], env);
      expect(noDatabase.code).toBe(1);
      expect(noDatabase.stderr).toContain('no Engram database');
      await writeFile(data('not-a-backup'), 'hello');
      const notBackup = await engram(['restore', data('not-a-backup')], env);
      expect(notBackup.code).toBe(1);
      expect(notBackup.stderr).toContain('not an engram backup');
    });
  },
);

describe.skipIf(!databaseServer)(
  'engram backup and restore on PostgreSQL (runs when TEST_DATABASE_URL names a server; skipped without one)',
  { timeout: 600_000 },
  () => {
    const names = ['source', 'copy'].map(
      (role) => `engram_backup_${role}_${Date.now().toString(36)}`,
    );
    const urlOf = (name: string) => {
      const url = new URL(databaseServer!);
      url.pathname = `/${name}`;
      return url.toString();
    };
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: databaseServer });
      await client.connect();
      try {
        await client.query(statement);
      } finally {
        await client.end();
      }
    };
    let folder: string;
    let source: ServerProcess | undefined;
    let restored: ServerProcess | undefined;

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'engram-backup-pg-'));
      for (const name of names) await admin(`create database ${name}`);
      source = await startServerProcess(
        childEnv({ DATABASE_URL: urlOf(names[0]!) }, { PLAN_SELF_SERVICE: 'true' }),
      );
    });
    afterAll(async () => {
      await stopServer(source);
      await stopServer(restored);
      for (const name of names) await admin(`drop database if exists ${name} with (force)`);
      await rm(folder, { recursive: true, force: true });
    });

    it('a backup taken while a server writes restores every acknowledged write, into an empty database only', async () => {
      const backupFile = join(folder, 'pg.engram-backup');
      const written = await writeAndBackUpUnderLoad(source!.url, () =>
        engram(['backup', '--output', backupFile], childEnv({ DATABASE_URL: urlOf(names[0]!) })),
      );
      expect(await modeOf(backupFile)).toBe(0o600);

      const env = childEnv({ DATABASE_URL: urlOf(names[1]!) });
      const restore = await engram(['restore', backupFile], env);
      expect(restore.code, restore.stderr).toBe(0);
      restored = await startServerProcess(env);
      await expectRestored(restored.url, written);
      await stopServer(restored);

      const refused = await engram(['restore', backupFile], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('is not empty');
      const forced = await engram(['restore', '--force', backupFile], env);
      expect(forced.code, forced.stderr).toBe(0);
    });
  },
);
