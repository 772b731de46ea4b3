import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  BackupRefusedError,
  headerBytes,
  readRestorableBackup,
  refuseNewerSchema,
  writeSecretFile,
  type BackupHeader,
} from './backup-file.js';
import { BACKUP_TOKEN_FILE } from './backup-token.js';
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from './connection.js';
import { DataFolderBusyError, lockDataFolder } from './data-lock.js';
import { migrate } from './migrate.js';
import { EXIT_WHEN_SETTLED, runNodeProcess } from './node-process.js';

/** What a backup of the embedded database holds: its header and the data folder's tar. */
export interface EmbeddedSnapshot {
  header: BackupHeader;
  payload: Uint8Array;
}

/** Files of the process that owned the folder (data-lock.ts, backup-token.ts): not the copy's. */
const OWNER_FILES = ['engram.pid', 'engram.server.json', BACKUP_TOKEN_FILE];

/** The migrations a database has applied (none when it was never migrated). */
export async function appliedMigrations(
  query: <R>(text: string) => Promise<R[]>,
): Promise<string[]> {
  const [table] = await query<{ present: boolean }>(
    "select to_regclass('schema_migrations') is not null as present",
  );
  if (!table?.present) return [];
  const rows = await query<{ name: string }>('select name from schema_migrations order by name');
  return rows.map((row) => row.name);
}

/**
 * A consistent copy of the whole embedded database, taken with the database
 * to itself: every transaction committed before it is in the copy, none is
 * half in it, and writes asked for meanwhile wait for it (pglite-dialect.ts).
 */
export async function snapshotEmbedded(handle: DatabaseHandle): Promise<EmbeddedSnapshot> {
  return handle.withSession(async (session) => {
    if (!session.dumpDataDir) throw new Error('Only the embedded database is copied this way.');
    const migrations = await appliedMigrations((text) => session.query(text));
    const payload = await session.dumpDataDir();
    return { header: { kind: 'pglite', migrations, takenAt: new Date().toISOString() }, payload };
  });
}

export async function writeEmbeddedBackup(output: string, snapshot: EmbeddedSnapshot) {
  await writeSecretFile(output, async (append) => {
    await append(headerBytes(snapshot.header));
    await append(snapshot.payload);
  });
}

/** `engram backup` with no server running: opens the folder itself (taking its lock). */
export async function backupEmbeddedAlone(
  options: DatabaseOptions,
  output: string,
): Promise<BackupHeader> {
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
    throw new BackupRefusedError(`There is no Engram database in ${options.dataDir} to back up.`);
  }
  const handle = await openDatabase(options);
  try {
    const snapshot = await snapshotEmbedded(handle);
    await writeEmbeddedBackup(output, snapshot);
    return snapshot.header;
  } finally {
    await handle.close();
  }
}

/**
 * `engram restore` into the embedded data folder. The copy is unpacked,
 * opened and migrated in a folder of its own inside the target, and moved
 * into place only once all of that worked: a refusal or a failure leaves the
 * target as it was. Returns the migrations applied after the copy's.
 */
export async function restoreEmbedded(
  file: string,
  options: DatabaseOptions,
  force: boolean,
): Promise<{ header: BackupHeader; applied: string[] }> {
  const { header, payloadOffset } = await readRestorableBackup(
    file,
    'pglite',
    `${file} is a backup of a PostgreSQL database: restore it with DATABASE_URL set to an empty database.`,
  );
  const target = options.dataDir;
  await mkdir(target, { recursive: true });
  // One process per folder: a server running on it refuses the restore here.
  let unlock: () => void;
  try {
    unlock = lockDataFolder(target);
  } catch (error) {
    if (!(error instanceof DataFolderBusyError)) throw error;
    throw new BackupRefusedError(
      `${error.message.replace(/ Stop it first.*/, '')} Stop it before restoring into this folder.`,
    );
  }
  try {
    const present = (await readdir(target)).filter((name) => name !== 'engram.pid');
    if (present.length > 0 && !force) {
      throw new BackupRefusedError(
        `The data folder ${target} is not empty. Restore into an empty folder, or pass --force to replace what it holds.`,
      );
    }
    const staging = join(target, `.engram-restore-${process.pid}`);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging);
    try {
      await unpack(file, payloadOffset, staging);
      for (const name of OWNER_FILES) await rm(join(staging, name), { force: true });
      const applied = await migrateCopy({ ...options, dataDir: staging });
      await replaceContents(target, present, staging);
      return { header, applied };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  } finally {
    unlock();
  }
}

/** Checks the copy's own schema (the header could be wrong), then migrates it. */
async function migrateCopy(options: DatabaseOptions): Promise<string[]> {
  const handle = await openDatabase(options);
  try {
    const applied = await handle.withSession((session) =>
      appliedMigrations((text) => session.query(text)),
    );
    refuseNewerSchema(applied);
    return await migrate(handle);
  } finally {
    await handle.close();
  }
}

/**
 * Moves the old contents aside, the copy's in, and only then deletes the old
 * ones; a failed move puts the old contents back. Renames within the target,
 * so one file system even when the target is a mount point.
 */
async function replaceContents(target: string, present: string[], staging: string) {
  const aside = join(target, `.engram-replaced-${process.pid}`);
  await mkdir(aside);
  const movedIn: string[] = [];
  try {
    for (const name of present) await rename(join(target, name), join(aside, name));
    for (const name of await readdir(staging)) {
      await rename(join(staging, name), join(target, name));
      movedIn.push(name);
    }
  } catch (error) {
    for (const name of movedIn) await rm(join(target, name), { recursive: true, force: true });
    for (const name of await readdir(aside)) await rename(join(aside, name), join(target, name));
    await rm(aside, { recursive: true, force: true });
    throw error;
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * Unpacks the tar into `dataDir` with PGlite's own `loadDataDir` and opens it
 * once, in a short-lived process (as a new folder is created, decision 026):
 * its memory, the whole tar included, goes back when it exits.
 */
async function unpack(file: string, offset: number, dataDir: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const modules = [
    require.resolve('@electric-sql/pglite'),
    require.resolve('@electric-sql/pglite/contrib/pg_trgm'),
    require.resolve('@electric-sql/pglite/contrib/btree_gin'),
  ];
  await runNodeProcess(
    ['--liftoff-only', '-e', UNPACK_SOURCE, ...modules, file, String(offset), dataDir],
    (reason) => new BackupRefusedError(`Could not unpack the backup ${file}: ${reason}`),
  );
}

const UNPACK_SOURCE = /* js */ `
  const [pglite, pgTrgm, btreeGin, file, offset, dataDir] = process.argv.slice(1);
  const { readFileSync } = require('node:fs');
  const { PGlite } = require(pglite);
  const { pg_trgm } = require(pgTrgm);
  const { btree_gin } = require(btreeGin);
  const tar = new Blob([readFileSync(file).subarray(Number(offset))], { type: 'application/x-gzip' });
  PGlite.create(dataDir, { loadDataDir: tar, extensions: { pg_trgm, btree_gin } })
    .then((db) => db.close())${EXIT_WHEN_SETTLED}`;
