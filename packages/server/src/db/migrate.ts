import type { DatabaseHandle } from './connection.js';
import { migrations } from './migrations/index.js';

/** Any fixed number: every node agrees on it, so only one migrates at a time. */
export const MIGRATION_LOCK = 0x656e6772;

/** The names of the migrations applied, made before the first one runs. */
export const SCHEMA_MIGRATIONS_TABLE = `create table if not exists schema_migrations (
  name text primary key,
  applied_at timestamptz not null default now()
)`;

/**
 * Applies pending migrations in order, each in its own transaction, under an
 * advisory lock so several nodes starting at once migrate exactly once.
 * Returns the names applied.
 */
export async function migrate(handle: DatabaseHandle): Promise<string[]> {
  return handle.withSession(async (session) => {
    await session.exec(SCHEMA_MIGRATIONS_TABLE);
    const applied: string[] = [];
    for (const migration of migrations) {
      await session.exec('begin');
      try {
        await session.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        const done = await session.query('select 1 from schema_migrations where name = $1', [
          migration.name,
        ]);
        if (done.length === 0) {
          await session.exec(migration.sql);
          await session.query('insert into schema_migrations (name) values ($1)', [migration.name]);
          applied.push(migration.name);
        }
        await session.exec('commit');
      } catch (error) {
        await session.exec('rollback');
        throw error;
      }
    }
    return applied;
  });
}
