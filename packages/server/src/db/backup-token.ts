import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The token `engram backup` shows a running server to be given a snapshot
 * (decision 038). `engram serve` writes a new one into the data folder at
 * start, readable by the folder's owner only: whoever can read it can read
 * the database files themselves, so it grants nothing they lacked — and it
 * is never an account's credential.
 */
export const BACKUP_TOKEN_FILE = 'engram.backup-token';

/** Writes a new token (mode 0600); returns the function that withdraws it. */
export function writeBackupToken(dataDir: string): () => void {
  const path = join(dataDir, BACKUP_TOKEN_FILE);
  // A new file each start (`wx`): never one left by another user with wider permissions.
  rmSync(path, { force: true });
  writeFileSync(path, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  return () => rmSync(path, { force: true });
}

/** The token of the server running on the folder, if it wrote one. */
export function readBackupToken(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, BACKUP_TOKEN_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Whether `presented` is the folder's token (compared in constant time). */
export function isBackupToken(dataDir: string, presented: string): boolean {
  const token = readBackupToken(dataDir);
  if (!token) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(token), digest(presented));
}
