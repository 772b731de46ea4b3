import { entityName } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { AppError, badRequest, notFoundBecause } from '../../lib/errors.js';
import * as entityRepo from './entities.repository.js';

/** An entity as a caller names it: by id (REST, the web app) or by name (MCP, imports). */
export type EntityRef = { id: string } | { name: string };

/**
 * The one rule for an entity name, whoever gives it: the shared `entityName`
 * schema (trimmed, not blank, at most ENTITY_NAME_MAX, no NUL). REST routes
 * refuse a bad name with that schema before the service runs, so only
 * name-addressed callers (MCP, imports) reach this refusal and its words.
 */
export function entityNameOf(name: string, field: string): string {
  const parsed = entityName.safeParse(name);
  if (parsed.success) return parsed.data;
  const blank = name.trim().length === 0;
  throw badRequest(field, blank ? 'Names must not be blank' : parsed.error.issues[0]!.message);
}

/** A type as given, trimmed; refused when blank. */
export function typeNameOf(type: string, field: string, what: string): string {
  const trimmed = type.trim();
  if (!trimmed) throw badRequest(field, `${what} must not be blank`);
  return trimmed;
}

/** The refusal of a name-addressed call that names entities that do not exist. */
export function missingEntities(names: string[]): AppError {
  const list = names.map((name) => `"${name}"`).join(', ');
  return notFoundBecause(
    `Entity not found: ${list}. Create ${names.length === 1 ? 'it' : 'them'} with create_entities first.`,
  );
}

/** Name (or alias) → key for the given names; fails naming every missing one. */
export async function requireByName(db: Db, accountId: string, names: string[]) {
  const unique = [...new Set(names)];
  const rows = await entityRepo.findEntityKeysByName(db, accountId, unique);
  const byName = new Map(rows.map((row) => [row.key, row]));
  const missing = unique.filter((name) => !byName.has(name));
  if (missing.length > 0) throw missingEntities(missing);
  return byName;
}
