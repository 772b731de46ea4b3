import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../db/connection.js';
import { migrate } from '../db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: the migrated data folder's tar every test database starts from. */
    pgliteTemplate?: string;
    /** PostgreSQL: the migrated database every test database is copied from. */
    postgresTemplate?: string;
  }
}

/**
 * Vitest's global setup: migrates one database before the test files run,
 * which each test database then starts from (test/harness.ts). A test file
 * no longer pays for initdb and every migration (about 5 s of PGlite's
 * start on these machines). Tests of migrations open their own databases.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl ? postgresTemplate(project, serverUrl) : pgliteTemplate(project);
}

async function pgliteTemplate(project: TestProject) {
  const database = await openDatabase({ dataDir: 'memory://' });
  await migrate(database);
  // As a freshly migrated server does at start (db/upkeep.ts, analyzeAtStart).
  const tar = await database.withSession(async (session) => {
    await session.exec('analyze');
    return session.dumpDataDir!();
  });
  await database.close();
  const folder = await mkdtemp(join(tmpdir(), 'engram-test-template-'));
  const file = join(folder, 'pglite.tar.gz');
  await writeFile(file, tar);
  project.provide('pgliteTemplate', file);
  return () => rm(folder, { recursive: true, force: true });
}

async function postgresTemplate(project: TestProject, serverUrl: string) {
  const name = `engram_template_${randomUUID().replaceAll('-', '')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  await migrate(database);
  await database.close();
  // A database is copied only while no one is connected to it: no test connects
  // to the template, and its own connections must be gone before the first copy.
  await adminQuery(serverUrl, `alter database ${name} with allow_connections false`);
  await adminQuery(
    serverUrl,
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`,
  );
  project.provide('postgresTemplate', name);
  return () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
}

/** One statement on the server's maintenance connection. */
export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
