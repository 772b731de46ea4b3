import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../packages/server/src/config.js';
import { openDatabase, type DatabaseHandle } from '../../packages/server/src/db/connection.js';

/** A fresh database for one bench run, removed by `dispose` unless kept. */
export interface BenchDatabase {
  handle: DatabaseHandle;
  where: string;
  dispose(): Promise<void>;
}

/**
 * A fresh embedded database in a new folder (with the buffer cache `engram
 * serve` would give it), or a fresh database on the PostgreSQL server at
 * `serverUrl`, dropped afterwards as the test harness does. `keep` leaves it
 * for EXPLAIN ANALYZE after the run.
 */
export async function openBenchDatabase(
  kind: 'pglite' | 'postgres',
  { serverUrl, keep = false }: { serverUrl: string; keep?: boolean },
): Promise<BenchDatabase> {
  if (kind === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'engram-bench-'));
    const { PGLITE_SHARED_BUFFERS_MB } = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
    const handle = await openDatabase({ dataDir: dir, sharedBuffersMb: PGLITE_SHARED_BUFFERS_MB });
    return {
      handle,
      where: dir,
      dispose: async () => {
        await handle.close();
        if (keep) console.log(`[pglite] kept ${dir}`);
        else await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `engram_bench_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  return {
    handle,
    where: `${url.host}/${name}`,
    dispose: async () => {
      await handle.close();
      if (keep) {
        console.log(`[postgres] kept ${url.toString()}`);
        return;
      }
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
