import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import type { SpaceAuth } from '../lib/auth-context.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';
import { UsageError } from './command.js';

/** Import and export are an operator's bulk commands: no statement timeout. */
export const BULK: RuntimeOptions = { unboundedStatements: true };

/**
 * Commands that act on an existing database refuse a data folder that holds
 * none: opening it would make a new, empty one (only `serve` and `migrate`
 * create a database), and the key would then be "not valid".
 */
export function requireDatabase(config: Config): void {
  if (config.DATABASE_URL || existsSync(join(config.DATA_DIR, 'PG_VERSION'))) return;
  throw new UsageError(
    `There is no Engram database in ${resolve(config.DATA_DIR)} (DATA_DIR). Set DATA_DIR to the folder engram serve uses, or create one there with engram serve or engram migrate.`,
  );
}

/** Opens the services and resolves ENGRAM_API_KEY to the account it acts for, in the space named. */
export async function withSpace(
  config: Config,
  space: { slug: string | undefined; access: 'read' | 'write' },
  fn: (runtime: Runtime, auth: SpaceAuth) => Promise<void>,
  options: RuntimeOptions = {},
): Promise<void> {
  requireDatabase(config);
  if (!config.ENGRAM_API_KEY) {
    throw new UsageError(
      'Set ENGRAM_API_KEY to an API key of the account to use (create one on the API Keys screen, or use your personal key from GET /auth/me).',
    );
  }
  const runtime = await createRuntime(config, options);
  try {
    const auth = await runtime.authenticate(config.ENGRAM_API_KEY);
    if (!auth)
      throw new UsageError('ENGRAM_API_KEY is not a valid, unexpired key on this database.');
    await fn(runtime, await runtime.spaces.resolveSpace(auth, space.slug, space.access, {}));
  } finally {
    await runtime.close();
  }
}
