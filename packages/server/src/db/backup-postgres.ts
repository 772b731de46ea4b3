import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import pg from 'pg';
import { appliedMigrations } from './backup-embedded.js';
import {
  BackupRefusedError,
  headerBytes,
  readRestorableBackup,
  writeSecretFile,
  type BackupHeader,
} from './backup-file.js';
import { openDatabase } from './connection.js';
import { migrate } from './migrate.js';

/**
 * Backups of a PostgreSQL database (decision 038) wrap the client tools:
 * `pg_dump` reads the database in one snapshot, the same snapshot this
 * module reads the applied migrations in, so the header says exactly what
 * the dump holds. Restoring runs `pg_restore`'s SQL through `psql` as one
 * transaction: all of it, or (an error, a broken file) none of it.
 */

/** `pg_dump`'s custom format (compressed), the whole database, owned by whoever restores it. */
const DUMP_ARGS = ['--format=custom', '--no-owner', '--no-privileges'];

/**
 * The client tools take the address without its password, which goes in
 * their environment instead: a command line is visible to every user of
 * the machine (`ps`).
 */
function toolConnection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return {
    dbname: url.toString(),
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
  };
}

function start(tool: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(tool, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // A tool that stopped early closes its input: its exit code tells why, not EPIPE.
  child.stdin?.on('error', () => undefined);
  return child;
}

/**
 * Resolves when the tool exits 0 and its output has been read to the end
 * ('close', not 'exit'); rejects with its own words otherwise.
 */
function finished(tool: string, child: ChildProcess): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new BackupRefusedError(
              `${tool} was not found: install the PostgreSQL client tools (the server's major version or newer; on Debian, apt install postgresql-client).`,
            )
          : error,
      ),
    );
    child.once('close', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new BackupRefusedError(`${tool} failed: ${stderr.trim() || signal || code}`)),
    );
  });
}

export async function backupPostgres(databaseUrl: string, output: string): Promise<BackupHeader> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // The snapshot pg_dump reads is this transaction's, exported to it.
    await client.query('begin isolation level repeatable read read only');
    const { rows } = await client.query<{ snapshot: string }>(
      'select pg_export_snapshot() as snapshot',
    );
    const migrations = await appliedMigrations(
      async <R>(text: string) => (await client.query(text)).rows as R[],
    );
    const header: BackupHeader = {
      kind: 'postgres',
      migrations,
      takenAt: new Date().toISOString(),
    };
    const { dbname, env } = toolConnection(databaseUrl);
    await writeSecretFile(output, async (append) => {
      await append(headerBytes(header));
      const dump = start(
        'pg_dump',
        [...DUMP_ARGS, `--snapshot=${rows[0]!.snapshot}`, `--dbname=${dbname}`],
        env,
      );
      const done = finished('pg_dump', dump);
      dump.stdin?.end();
      for await (const chunk of dump.stdout!) await append(chunk as Buffer);
      await done;
    });
    await client.query('commit');
    return header;
  } finally {
    await client.end();
  }
}

/** Tables, views and sequences outside PostgreSQL's own schemas. */
async function userRelations(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    `select count(*) as count from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
        and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`,
  );
  return Number(rows[0]!.count);
}

export async function restorePostgres(
  file: string,
  databaseUrl: string,
  force: boolean,
): Promise<{ header: BackupHeader; applied: string[] }> {
  const { header, payloadOffset } = await readRestorableBackup(
    file,
    'postgres',
    `${file} is a backup of the embedded database: restore it with DATABASE_URL unset, into an empty DATA_DIR.`,
  );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let occupied: number;
  try {
    occupied = await userRelations(client);
  } finally {
    await client.end();
  }
  if (occupied > 0 && !force) {
    throw new BackupRefusedError(
      `The database is not empty (${occupied} tables, views or sequences). Restore into an empty database, or pass --force to replace what it holds.`,
    );
  }

  const { dbname, env } = toolConnection(databaseUrl);
  const restore = start('pg_restore', [...DUMP_ARGS.slice(1), '--file=-'], env);
  const psql = start(
    'psql',
    ['--no-psqlrc', '--quiet', '--set=ON_ERROR_STOP=1', '--file=-', `--dbname=${dbname}`],
    env,
  );
  const restored = finished('pg_restore', restore);
  const ran = finished('psql', psql);
  // psql stopping (an error) leaves pg_restore writing to no one: stop it too.
  let psqlError: unknown;
  ran.catch((error: unknown) => {
    psqlError = error;
    restore.kill();
  });
  psql.stdout?.resume();
  createReadStream(file, { start: payloadOffset }).pipe(restore.stdin!);
  // The transaction is ours: COMMIT is sent only after pg_restore finished
  // well. A failure before it ends psql's input without one, and PostgreSQL
  // rolls everything back when the session closes.
  psql.stdin!.write(
    `begin;\n${occupied > 0 ? 'drop schema public cascade;\ncreate schema public;\n' : ''}`,
  );
  restore.stdout!.pipe(psql.stdin!, { end: false });
  try {
    await restored;
  } catch (error) {
    psql.stdin!.end();
    await ran.catch(() => undefined);
    throw psqlError ?? error;
  }
  psql.stdin!.end('commit;\n');
  await ran;

  const handle = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    return { header, applied: await migrate(handle) };
  } finally {
    await handle.close();
  }
}
