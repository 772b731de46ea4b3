import type { Entity, EntityList, ObservationInput } from '@engram/shared';
import { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { conflict, notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as entityRepo from './entities.repository.js';
import * as searchRepo from './search.repository.js';
import * as writes from './graph.writes.js';
import { write } from './write.js';
import { entityNameOf, requireByName, typeNameOf, type EntityRef } from './names.js';
import type { GraphDeps } from './graph-deps.js';
import { fitBytes, observationRowsOf } from './read-bounds.js';
import { toEntities, toEntity, withObservations } from './wire-shapes.js';

/**
 * What creating an entity whose name the account already has does:
 * - `reject`: the whole call fails with 409 naming it (REST);
 * - `skip`: it is left as it is, its given observations dropped (MCP
 *   `create_entities`, JSONL import: the reference server's rule);
 * - `merge`: it gains the given observations it does not have yet; its type
 *   and metadata stay.
 */
export type ExistingName = 'reject' | 'skip' | 'merge';

export interface NewEntityInput {
  name: string;
  type: string;
  metadata?: Record<string, unknown> | undefined;
  observations?: ObservationInput[] | undefined;
}

/**
 * Creates the entities whose names are new, in the order given; a name given
 * twice in one call becomes one entity with the observations of both. Returns
 * the entities created (with every observation), then with `merge` the
 * existing ones named, as they stand after (cut to the read limits).
 */
export async function createEntities(
  deps: GraphDeps,
  auth: SpaceAuth,
  entities: NewEntityInput[],
  options: { existing: ExistingName },
): Promise<Entity[]> {
  const given = entities.map((entity, index) => ({
    name: entityNameOf(entity.name, `entities.${index}.name`),
    type: typeNameOf(entity.type, `entities.${index}.entityType`, 'entityType'),
    metadata: entity.metadata ?? {},
    observations: entity.observations ?? [],
  }));
  if (given.length === 0) return [];
  const { result } = await write(deps, auth, async (scope) => {
    // Skipping existing names, nothing follows the insert: it goes with the append (decision 034).
    const created = await writes.createEntities(scope, given, {
      last: options.existing === 'skip',
    });
    const answer = created.map(({ row, observations }) => toEntity(row, observations));
    if (options.existing === 'skip') return answer;
    const createdNames = new Set(answer.map((entity) => entity.name));
    const existing = [...new Set(given.map((entity) => entity.name))].filter(
      (name) => !createdNames.has(name),
    );
    if (existing.length === 0) return answer;
    if (options.existing === 'reject') {
      // Its name, or another's alias: the refusal says which entity holds it.
      await writes.assertNamesFree(scope, existing, [], 'name');
      throw conflict(`An entity named "${existing[0]}" already exists`, 'name');
    }
    const byName = await requireByName(scope.trx, auth.space.id, existing);
    const additions = given.flatMap((entity, index) => {
      const key = byName.get(entity.name);
      if (!key || writes.cleanObservations(entity.observations).length === 0) return [];
      return [
        {
          entity: key.id,
          observations: entity.observations,
          field: `entities.${index}.observations`,
        },
      ];
    });
    if (additions.length > 0) await writes.addObservations(scope, additions);
    const rows = await entityRepo.findEntitiesByName(scope.trx, auth.space.id, existing);
    const order = new Map(existing.map((name, index) => [name, index]));
    rows.sort((a, b) => order.get(a.key)! - order.get(b.key)!);
    const merged = await withObservations({ ...deps, db: scope.trx }, auth.space.id, rows);
    return [...answer, ...merged.entities];
  });
  return result;
}

export async function getEntity(deps: GraphDeps, auth: SpaceAuth, id: string): Promise<Entity> {
  const maxRows = observationRowsOf(deps.bounds);
  const found = isUuid(id)
    ? await entityRepo.findEntityWithObservations(deps.db, auth.space.id, id, maxRows)
    : undefined;
  if (!found) throw notFound('Entity');
  const take = Math.min(found.row.observations_count, maxRows);
  const bounded = fitBytes([{ row: found.row, take }], found.observations, 1, deps.bounds);
  return toEntities(bounded).entities[0]!;
}

/**
 * Where an entity list's page ended (its `nextCursor`): the list it belongs
 * to (`n`ewest first, or `s`earch), the last entity given and how many
 * entities came before the next page. The entity's id, not its place in the
 * order: that place is a server-wide counter, and a cursor tells nothing the
 * answer did not. The count is where the next page goes on from, as an
 * offset would, when that entity was deleted since (or no longer matches).
 */
const entityCursorShape = (list: 'n' | 's') =>
  z
    .tuple([
      z.literal(list),
      z.string().refine(isUuid),
      z
        .number()
        .int()
        .min(1)
        .max(2 ** 31 - 1),
    ])
    .transform(([, after, seen]) => ({ after, seen }));

/** What the entity list (`GET /api/entities`) filters and pages by; as of a past point, `cursor` is not taken. */
export interface EntityFilter {
  query?: string | undefined;
  types?: string[] | undefined;
  limit: number;
  offset: number;
  cursor?: string | undefined;
}

export async function listEntities(
  deps: GraphDeps,
  auth: SpaceAuth,
  filter: EntityFilter,
): Promise<EntityList> {
  const list = filter.query ? 's' : 'n';
  // Named as the REST error handler names a query parameter ('query.limit').
  const at =
    filter.cursor === undefined
      ? undefined
      : decodeCursor(filter.cursor, entityCursorShape(list), 'query.cursor');
  const limit = Math.min(filter.limit, deps.bounds.maxRows);
  const start = at ? at.seen : filter.offset;
  const page = {
    types: filter.types,
    // One row past the page says whether another follows.
    limit: limit + 1,
    // Used only when the cursor's entity is gone: go on by count, without it.
    offset: at ? at.seen - 1 : filter.offset,
    after: at?.after,
  };
  const { rows, total } = filter.query
    ? await searchRepo.searchEntities(deps.db, auth.space.id, { ...page, query: filter.query })
    : await entityRepo.listEntities(deps.db, auth.space.id, page);
  const { entities, cut } = await withObservations(deps, auth.space.id, rows.slice(0, limit));
  const more = rows.length > limit || entities.length < Math.min(rows.length, limit);
  const next = start + entities.length;
  const last = entities[entities.length - 1];
  return {
    entities,
    total,
    nextOffset: more ? next : null,
    truncated: more && (cut || entities.length < filter.limit),
    nextCursor: more && last ? encodeCursor([list, last.id, next]) : null,
  };
}

/**
 * Changes one entity, by id (404 `Entity not found`) or by name (404 naming
 * it): renames (the one name rule), retypes (a blank type keeps it), replaces
 * its metadata, and when given its whole list of observations.
 */
export async function updateEntity(
  deps: GraphDeps,
  auth: SpaceAuth,
  ref: EntityRef,
  change: writes.EntityChange,
): Promise<Entity> {
  const { result } = await write(deps, auth, async (scope) => {
    const id =
      'id' in ref
        ? ref.id
        : (await requireByName(scope.trx, auth.space.id, [ref.name])).get(ref.name)!.id;
    const row = await writes.updateEntity(scope, id, {
      name: change.name === undefined ? undefined : entityNameOf(change.name, 'name'),
      type: change.type?.trim() || undefined,
      metadata: change.metadata,
      aliases: change.aliases,
      observations: change.observations,
    });
    const { entities } = await withObservations({ ...deps, db: scope.trx }, auth.space.id, [row]);
    return entities[0]!;
  });
  return result;
}

/**
 * Deletes one entity with its observations and relations; 404 when there is
 * none. Answers the call's seq (history's `callSeq`), which a revert undoes.
 */
export async function deleteEntity(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
): Promise<{ callSeq: number }> {
  const { seqs } = await write(deps, auth, async (scope) => {
    const [deleted] = await writes.deleteEntities(scope, [id]);
    if (!deleted) throw notFound('Entity');
  });
  // 0 when the call changed nothing.
  return { callSeq: seqs[0] ?? 0 };
}

/** Deletes the named entities with their observations and relations; unknown names are ignored. */
export async function deleteEntitiesByName(
  deps: GraphDeps,
  auth: SpaceAuth,
  names: string[],
): Promise<void> {
  await write(deps, auth, (scope) =>
    writes.deleteEntities(scope, names, { by: 'name', last: true }),
  );
}
