import { parseArgs } from 'node:util';
import { backupEmbeddedAlone } from '../db/backup-embedded.js';
import {
  BackupRefusedError,
  readBackupHeader,
  writeSecretFile,
  type BackupHeader,
} from '../db/backup-file.js';
import { backupPostgres } from '../db/backup-postgres.js';
import { readBackupToken } from '../db/backup-token.js';
import { runningServer, type RunningServer } from '../db/data-lock.js';
import { BACKUP_TOKEN_HEADER } from '../features/backup/index.js';
import { isLoopbackBind } from '../lib/loopback.js';
import { databaseOptionsOf } from '../runtime.js';
import { UsageError, type Command } from './command.js';

/**
 * `engram backup --output <file>` (docs/deploy.md "Backups", decision 038):
 * with DATABASE_URL, pg_dump's snapshot; on the embedded database, the
 * running server's snapshot when one owns the folder, else the folder's own.
 */
export const backup: Command = {
  help: `  backup --output <file>    Write a consistent snapshot of the whole database (every
                            account, key, history, webhook, OAuth and instance secret:
                            keep it secret; written with mode 0600). While engram serve
                            owns the data folder, asks that server for it`,
  async run(config, args) {
    const { values } = parseArgs({ args, options: { output: { type: 'string' } } });
    if (!values.output)
      throw new UsageError('Give the file to write: engram backup --output <file>');
    const server = config.DATABASE_URL ? undefined : runningServer(config.DATA_DIR);
    const header = config.DATABASE_URL
      ? await backupPostgres(config.DATABASE_URL, values.output)
      : server
        ? await backupFromServer(server, config.DATA_DIR, values.output)
        : await backupEmbeddedAlone(databaseOptionsOf(config), values.output);
    console.error(
      `Backed up ${describeBackup(header)} to ${values.output}. It holds every account and the instance's secrets: keep it private.`,
    );
  },
};

/** What a backup holds, in a few words. */
export function describeBackup(header: BackupHeader): string {
  const kind = header.kind === 'pglite' ? 'embedded database' : 'PostgreSQL database';
  return `the ${kind} as of ${header.takenAt} (${header.migrations.length} migrations)`;
}

/** Asks the server that owns the data folder for its snapshot, over loopback, with the folder's token. */
async function backupFromServer(
  server: RunningServer,
  dataDir: string,
  output: string,
): Promise<BackupHeader> {
  const token = readBackupToken(dataDir);
  if (!token) {
    throw new BackupRefusedError(
      `The server running on ${dataDir} (pid ${server.pid}) wrote no backup token: restart it with this version of Engram, or stop it and run engram backup again.`,
    );
  }
  const url = new URL('/internal/backup', server.url);
  if (!isLoopbackBind(url.hostname)) {
    throw new BackupRefusedError(
      `The server running on ${dataDir} listens on ${url.host}, not on a loopback address, and gives backups over loopback only: stop it and run engram backup again, or serve with HOST=127.0.0.1 (or 0.0.0.0).`,
    );
  }
  const response = await fetch(url, { method: 'POST', headers: { [BACKUP_TOKEN_HEADER]: token } });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new BackupRefusedError(
      `The server refused the backup (${response.status}): ${body.error ?? response.statusText}`,
    );
  }
  const body = response.body;
  await writeSecretFile(output, async (append) => {
    for await (const chunk of body) await append(chunk);
  });
  return (await readBackupHeader(output)).header;
}
