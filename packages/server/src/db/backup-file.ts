import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { migrations } from './migrations/index.js';

/**
 * An `engram backup` file (decision 038): a first line naming the format, a
 * line of JSON saying what the snapshot is, then the database itself —
 * PGlite's data folder as a gzipped tar, or `pg_dump`'s custom format
 * (compressed). The header is read before anything is restored, so a backup
 * of the other kind or of a newer schema is refused before a byte is written.
 */
const MAGIC = 'ENGRAM-BACKUP 1\n';
/** Far more than a header needs (the migration names are a few KB at most). */
const HEADER_LIMIT = 1 << 20;

export type BackupKind = 'pglite' | 'postgres';

export interface BackupHeader {
  kind: BackupKind;
  /** Every migration applied in the snapshot (schema_migrations), in order. */
  migrations: string[];
  /** When the snapshot was taken (ISO 8601). */
  takenAt: string;
}

/** A backup or restore refused with a message for the operator (exit code 1). */
export class BackupRefusedError extends Error {
  override name = 'BackupRefusedError';
}

export function headerBytes(header: BackupHeader): Buffer {
  return Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`);
}

/** The header of a backup file and where its payload starts. */
export async function readBackupHeader(
  file: string,
): Promise<{ header: BackupHeader; payloadOffset: number }> {
  const handle = await open(file, 'r').catch((error: Error) => {
    throw new BackupRefusedError(`Cannot read ${file}: ${error.message}`);
  });
  try {
    const buffer = Buffer.alloc(HEADER_LIMIT);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_LIMIT, 0);
    const start = buffer.subarray(0, bytesRead);
    const end = start.indexOf('\n', MAGIC.length);
    if (start.subarray(0, MAGIC.length).toString() !== MAGIC || end < 0) {
      throw new BackupRefusedError(`${file} is not an engram backup file.`);
    }
    const header = JSON.parse(start.subarray(MAGIC.length, end).toString()) as BackupHeader;
    if (!['pglite', 'postgres'].includes(header.kind) || !Array.isArray(header.migrations)) {
      throw new BackupRefusedError(`${file} is not an engram backup file.`);
    }
    return { header, payloadOffset: end + 1 };
  } finally {
    await handle.close();
  }
}

/**
 * Refuses a snapshot whose schema is newer than this code's: migrations it
 * does not know would leave tables and columns it cannot keep right.
 */
export function refuseNewerSchema(applied: readonly string[]): void {
  const known = new Set(migrations.map((migration) => migration.name));
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new BackupRefusedError(
      `The backup's schema is newer than this version of Engram knows (${unknown.join(', ')}). ` +
        'Restore it with that version or a later one.',
    );
  }
}

/**
 * The header of a backup to restore into a database of `kind`, and where its
 * payload starts: one of the other kind is refused with `otherKindRefusal`
 * (what to do instead), one of a newer schema as `refuseNewerSchema` says.
 */
export async function readRestorableBackup(
  file: string,
  kind: BackupKind,
  otherKindRefusal: string,
): Promise<{ header: BackupHeader; payloadOffset: number }> {
  const backup = await readBackupHeader(file);
  if (backup.header.kind !== kind) throw new BackupRefusedError(otherKindRefusal);
  refuseNewerSchema(backup.header.migrations);
  return backup;
}

/**
 * Writes a secret file whole or not at all: into a new file of mode 0600
 * beside `path` (`wx`: never a file someone else made), renamed over `path`
 * once written and flushed. A failure leaves no partial file behind.
 */
export async function writeSecretFile(
  path: string,
  write: (append: (chunk: Uint8Array) => Promise<void>) => Promise<void>,
): Promise<void> {
  const temporary = join(
    dirname(path),
    `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`,
  );
  const handle = await open(temporary, 'wx', 0o600).catch((error: Error) => {
    throw new BackupRefusedError(`Cannot write ${path}: ${error.message}`);
  });
  try {
    // The mode given to open is reduced by the umask; 0600 is kept exactly.
    await handle.chmod(0o600);
    await write(async (chunk) => {
      await handle.write(chunk);
    });
    await handle.sync();
    await handle.close();
    await rename(temporary, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}
