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
import {
  isEndOfData,
  LineReader,
  readStatement,
  refusal,
  ROW_LIMIT,
  STATEMENT_LIMIT,
  type EngramSchema,
} from './dump-reader.js';
import { migrate, MIGRATION_LOCK, SCHEMA_MIGRATIONS_TABLE } from './migrate.js';
import { migrations } from './migrations/index.js';
import { CopyIn } from './pg-copy.js';

/**
 * Backups of a PostgreSQL database (decision 038) wrap the client tools:
 * `pg_dump` reads the database in one snapshot, the same snapshot this
 * module reads the applied migrations in, so the header says exactly what
 * the dump holds. A restore runs none of the file's SQL (a backup may come
 * from anywhere, issue "Hardening IV"): this code's migrations make the
 * schema at the backup's level, and only the rows of Engram's tables are
 * copied in, each COPY written here from names checked against that schema.
 * One transaction: all of it, or (a refusal, a broken file) none of it.
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

/**
 * How many of this code's migrations the backup had applied. Its list must
 * be their beginning: migrate.ts applies them in order and stops at a failure.
 */
function migrationLevel(applied: readonly string[]): number {
  const ours = migrations.slice(0, applied.length).map((migration) => migration.name);
  if (applied.some((name, index) => name !== ours[index])) {
    throw new BackupRefusedError(
      `The backup's migrations (${applied.join(', ')}) are not the first ${applied.length} of this version's: it is not a backup Engram wrote.`,
    );
  }
  return applied.length;
}

const quote = (name: string) => pg.escapeIdentifier(name);
const tableName = (name: string) => `public.${quote(name)}`;

/** Engram's tables (their columns a COPY lists) and sequences, as the migrations made them. */
async function engramSchema(client: pg.Client, level: string): Promise<EngramSchema> {
  const { rows } = await client.query<{ name: string; kind: string; columns: string[] }>(
    `select c.relname as name, c.relkind as kind,
            array(select a.attname::text from pg_attribute a
                   where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                     and a.attgenerated = ''
                   order by a.attnum) as columns
       from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'S')
        and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass
                          and d.objid = c.oid and d.deptype = 'e')`,
  );
  const schema: EngramSchema = { level, tables: new Map(), sequences: new Set() };
  for (const row of rows) {
    if (row.kind === 'S') schema.sequences.add(row.name);
    else schema.tables.set(row.name, row.columns);
  }
  return schema;
}

const ENABLE: Record<string, string> = {
  O: 'enable trigger',
  A: 'enable always trigger',
  R: 'enable replica trigger',
};

/**
 * Readies the migrated, still empty schema for the backup's rows, as
 * pg_restore's own order would: no foreign keys and no triggers while the
 * data goes in. The rows come in any table order, and the dump already holds
 * what the triggers derive (counters, word indexes): firing them would count
 * twice. The rows the migrations seeded go too: the backup holds its own.
 * `session_replication_role` would need a superuser; the tables are ours
 * (made in this transaction), so this works for any role that may restore.
 * Returns the statements that put the keys and triggers back.
 */
async function setAside(client: pg.Client, tables: string[]): Promise<string> {
  const { rows: keys } = await client.query<{ table: string; name: string; definition: string }>(
    `select c.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
       from pg_constraint k join pg_class c on c.oid = k.conrelid
      where c.relnamespace = 'public'::regnamespace and k.contype = 'f' and k.conparentid = 0
      order by 1, 2`,
  );
  const { rows: triggers } = await client.query<{ table: string; name: string; enabled: string }>(
    `select c.relname as table, t.tgname as name, t.tgenabled as enabled
       from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = 'public'::regnamespace and not t.tgisinternal and t.tgenabled <> 'D'
      order by 1, 2`,
  );
  const aside = [
    ...keys.map((key) => `alter table ${tableName(key.table)} drop constraint ${quote(key.name)}`),
    ...triggers.map((t) => `alter table ${tableName(t.table)} disable trigger ${quote(t.name)}`),
  ];
  if (tables.length > 0) aside.push(`truncate table ${tables.map(tableName).join(', ')}`);
  if (aside.length > 0) await client.query(aside.join(';\n'));
  return [
    ...triggers.map(
      (t) => `alter table ${tableName(t.table)} ${ENABLE[t.enabled]} ${quote(t.name)}`,
    ),
    // Adding a key checks every row against it, as pg_restore's order does.
    ...keys.map(
      (key) =>
        `alter table ${tableName(key.table)} add constraint ${quote(key.name)} ${key.definition}`,
    ),
  ].join(';\n');
}

/** Refuses with the server's words when a table's rows do not load. */
function loadFailure(table: string, error: unknown): Error {
  if (error instanceof BackupRefusedError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new BackupRefusedError(
    `The backup's rows of public.${table} do not load: ${message}. Nothing was restored.`,
  );
}

/** Streams one table's rows (up to `\.`) into a COPY this code wrote from the checked names. */
async function copyRows(
  client: pg.Client,
  reader: LineReader,
  step: { table: string; columns: string[] },
  restored: Promise<void>,
): Promise<void> {
  const copy = CopyIn.start(
    client,
    `copy ${tableName(step.table)} (${step.columns.map(quote).join(', ')}) from stdin`,
  );
  try {
    for (;;) {
      const row = await reader.next(ROW_LIMIT);
      if (row === null) {
        // pg_restore's own error says more than the text it left unfinished.
        await restored;
        throw refusal(reader.lineNumber, `ends inside the rows of public.${step.table}`);
      }
      if (isEndOfData(row)) break;
      await copy.writeLine(row);
    }
    await copy.end();
  } catch (error) {
    await copy.fail(error instanceof Error ? error.message : 'refused');
    throw loadFailure(step.table, error);
  }
}

/**
 * Reads the backup's data as pg_restore writes it, checking each line
 * (dump-reader.ts), and loads it with statements of its own: the file's SQL
 * is never run. pg_restore only turns the archive into text.
 */
async function loadData(
  client: pg.Client,
  file: string,
  payloadOffset: number,
  schema: EngramSchema,
): Promise<void> {
  const restore = start('pg_restore', ['--data-only', '--file=-'], process.env);
  const restored = finished('pg_restore', restore);
  restored.catch(() => undefined);
  const input = createReadStream(file, { start: payloadOffset });
  input.on('error', (error) => restore.stdin!.destroy(error));
  input.pipe(restore.stdin!);
  const reader = new LineReader(restore.stdout!);
  const copied = new Set<string>();
  try {
    for (;;) {
      const line = await reader.next(STATEMENT_LIMIT);
      if (line === null) break;
      const step = readStatement(line.toString('utf8'), reader.lineNumber, schema, copied);
      if (step?.kind === 'encoding') {
        // The rows' bytes are in the dump's encoding; set for this transaction only.
        await client.query("select pg_catalog.set_config('client_encoding', $1, true)", [
          step.name,
        ]);
      } else if (step?.kind === 'setval') {
        await client.query('select pg_catalog.setval($1::regclass, $2::bigint, $3)', [
          tableName(step.sequence),
          step.value,
          step.called,
        ]);
      } else if (step?.kind === 'copy') {
        copied.add(step.table);
        await copyRows(client, reader, step, restored);
      }
    }
    await restored;
  } finally {
    input.destroy();
    if (restore.exitCode === null && restore.signalCode === null) restore.kill();
  }
}

/**
 * Restores a PostgreSQL backup in one transaction: the schema made by this
 * code's migrations up to the backup's level, the backup's rows checked and
 * copied in, then (after COMMIT) the migrations it lacked. A refused or
 * broken file rolls back everything, `--force`'s drop included.
 */
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
  const level = migrationLevel(header.migrations);
  const client = new pg.Client({ connectionString: databaseUrl });
  // A lost connection fails the statement waiting on it; the event alone must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const occupied = await userRelations(client);
    if (occupied > 0 && !force) {
      throw new BackupRefusedError(
        `The database is not empty (${occupied} tables, views or sequences). Restore into an empty database, or pass --force to replace what it holds.`,
      );
    }
    await client.query('begin');
    try {
      // A large restore takes as long as it takes: no limit of the role's applies.
      await client.query(
        'set local statement_timeout = 0; set local lock_timeout = 0; set local idle_in_transaction_session_timeout = 0',
      );
      if (occupied > 0) await client.query('drop schema public cascade; create schema public');
      await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(SCHEMA_MIGRATIONS_TABLE);
      for (const migration of migrations.slice(0, level)) {
        await client.query(migration.sql);
        await client.query('insert into schema_migrations (name) values ($1)', [migration.name]);
      }
      const schema = await engramSchema(client, header.migrations.at(-1) ?? 'before any migration');
      const putBack = await setAside(client, [...schema.tables.keys()]);
      await loadData(client, file, payloadOffset, schema);
      if (putBack) await client.query(putBack);
      const { rows } = await client.query<{ name: string }>(
        'select name from schema_migrations order by name',
      );
      const loaded = rows.map((row) => row.name);
      if (loaded.join('\n') !== header.migrations.join('\n')) {
        throw new BackupRefusedError(
          `The backup's schema_migrations (${loaded.join(', ') || 'none'}) are not the ones its header names (${header.migrations.join(', ') || 'none'}). Nothing was restored.`,
        );
      }
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }

  const handle = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    return { header, applied: await migrate(handle) };
  } finally {
    await handle.close();
  }
}
