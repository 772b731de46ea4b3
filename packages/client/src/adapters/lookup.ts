/** Entities and relations by name, as the tools take them, over the REST client. */
import type { Engram } from '../client.js';
import { EngramError } from '../errors.js';
import type { Entity, EntityListItem, RelationListItem } from '../types.js';
import type { ToolEntity, ToolRelation } from './tool-types.js';

export const toEntity = (entity: Entity | EntityListItem): ToolEntity => ({
  name: entity.name,
  entityType: entity.type,
  observations: entity.observations.map((observation) => observation.content),
});

export const toRelation = (relation: RelationListItem): ToolRelation => ({
  from: relation.fromEntity.name,
  to: relation.toEntity.name,
  relationType: relation.relationType,
});

export const isCode = (error: unknown, code: string) =>
  error instanceof EngramError && error.code === code;

export async function firstPage<Page>(pages: { pages(): AsyncGenerator<Page, void, undefined> }) {
  for await (const page of pages.pages()) return page;
  throw new Error('Engram: a list answered no page');
}

/**
 * The entity a name means, as the server's by-name calls read it: its name
 * or one of its aliases, exactly; failing that, the same ignoring case.
 */
export async function findEntityByName(
  client: Engram,
  name: string,
): Promise<EntityListItem | undefined> {
  const wanted = name.trim();
  let page;
  try {
    page = await firstPage(client.entities.list({ query: wanted, limit: 25 }));
  } catch (error) {
    // A space not made yet (a client with `createSpace`, before its first write) has no entities.
    if (isCode(error, 'NOT_FOUND')) return undefined;
    throw error;
  }
  const lower = wanted.toLowerCase();
  return (
    page.entities.find((entity) => entity.name === wanted) ??
    page.entities.find((entity) => entity.aliases.includes(wanted)) ??
    page.entities.find(
      (entity) =>
        entity.name.toLowerCase() === lower ||
        entity.aliases.some((alias) => alias.toLowerCase() === lower),
    )
  );
}

/** Every named entity, or the names no entity has. */
export async function entitiesByName(client: Engram, names: readonly string[]) {
  const unique = [...new Set(names.map((name) => name.trim()))];
  const found = await Promise.all(unique.map((name) => findEntityByName(client, name)));
  const byName = new Map<string, EntityListItem>();
  const missing: string[] = [];
  unique.forEach((name, i) => {
    const entity = found[i];
    if (entity) byName.set(name, entity);
    else missing.push(name);
  });
  return { byName, missing };
}

export function missingError(missing: string[]): Error {
  const list = missing.map((name) => `"${name}"`).join(', ');
  return new Error(`No entity named ${list}: remember something about it first.`);
}
