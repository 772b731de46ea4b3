import { openDatabase } from '../db/connection.js';
import { migrate as applyMigrations } from '../db/migrate.js';
import { databaseOptionsOf } from '../runtime.js';
import type { Command } from './command.js';

/** `engram migrate`: applies pending migrations and exits. */
export const migrate: Command = {
  help: '  migrate                   Apply pending database migrations and exit',
  async run(config) {
    const handle = await openDatabase(databaseOptionsOf(config));
    try {
      const applied = await applyMigrations(handle);
      console.error(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date');
    } finally {
      await handle.close();
    }
  },
};
