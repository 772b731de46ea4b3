import { parseArgs } from 'node:util';
import { restoreEmbedded } from '../db/backup-embedded.js';
import { restorePostgres } from '../db/backup-postgres.js';
import { databaseOptionsOf } from '../runtime.js';
import { describeBackup } from './backup.js';
import { UsageError, type Command } from './command.js';

/** `engram restore <file> [--force]` (docs/deploy.md "Backups"). */
export const restore: Command = {
  help: `  restore <file> [--force]  Restore a backup into an empty data folder or database of
                            the same kind (--force replaces what is there), then migrate`,
  async run(config, args) {
    const { values, positionals } = parseArgs({
      args,
      options: { force: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
    const file = positionals[0];
    if (!file || positionals.length > 1) {
      throw new UsageError('Give the backup file to restore: engram restore <file> [--force]');
    }
    const done = config.DATABASE_URL
      ? await restorePostgres(file, config.DATABASE_URL, values.force)
      : await restoreEmbedded(file, databaseOptionsOf(config), values.force);
    const where = config.DATABASE_URL ? 'the database' : config.DATA_DIR;
    const migrated = done.applied.length ? `; applied ${done.applied.join(', ')}` : '';
    console.error(`Restored ${describeBackup(done.header)} into ${where}${migrated}.`);
  },
};
