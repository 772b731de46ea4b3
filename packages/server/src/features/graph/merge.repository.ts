import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { RelationRow } from './relations.repository.js';

/**
 * The statements of a merge and of its revert (graph.writes.ts
 * `mergeEntities`, `restoreObservations`, `restoreRelations`): rows that move
 * between entities keep their ids, and the counters they touch (observation
 * counts, degrees, per-type counts) are counted again for the entities
 * involved, a handful per merge.
 */

/** Every relation touching these entities, either way. */
export async function relationsTouching(
  db: Db,
  spaceId: string,
  entityIds: string[],
): Promise<RelationRow[]> {
  if (entityIds.length === 0) return [];
  const result = await sql<RelationRow>`
    select id, from_id, to_id, type, created_at, valid_from, valid_to from relations
     where space_id = ${spaceId} and from_id = any(${entityIds}::uuid[])
    union
    select id, from_id, to_id, type, created_at, valid_from, valid_to from relations
     where space_id = ${spaceId} and to_id = any(${entityIds}::uuid[])
  `.execute(db);
  return result.rows;
}

/** Moves observations (by id) to other entities at the given positions, then counts both sides again. */
export async function moveObservations(
  db: Db,
  spaceId: string,
  moves: { id: string; entityId: string; position: number }[],
): Promise<void> {
  if (moves.length === 0) return;
  const result = await sql<{ from_id: string }>`
    with given as (
      select * from json_to_recordset(${JSON.stringify(moves)}::json)
        as g(id uuid, "entityId" uuid, position int)
    ),
    was as (
      select o.id, o.entity_id from observations o join given g on g.id = o.id
       where o.space_id = ${spaceId}
    ),
    moved as (
      update observations o set entity_id = g."entityId", position = g.position
        from given g
       where o.space_id = ${spaceId} and o.id = g.id
      returning o.id
    )
    select distinct entity_id as from_id from was
  `.execute(db);
  await recountObservations(db, spaceId, [
    ...new Set([...result.rows.map((row) => row.from_id), ...moves.map((move) => move.entityId)]),
  ]);
}

/** Sets each entity's observation count from its rows. */
async function recountObservations(db: Db, spaceId: string, entityIds: string[]): Promise<void> {
  await sql`
    update entities e
       set observations_count = (select count(*)::int from observations o
                                  where o.space_id = ${spaceId} and o.entity_id = e.id),
           updated_at = clock_timestamp()
     where e.space_id = ${spaceId} and e.id = any(${entityIds}::uuid[])
  `.execute(db);
}

/** Re-points relations (by id) to other ends, then counts every end involved's degree again. */
export async function setRelationEnds(
  db: Db,
  spaceId: string,
  changes: { id: string; fromId: string; toId: string }[],
): Promise<void> {
  if (changes.length === 0) return;
  const result = await sql<{ end_id: string }>`
    with given as (
      select * from json_to_recordset(${JSON.stringify(changes)}::json)
        as g(id uuid, "fromId" uuid, "toId" uuid)
    ),
    was as (
      select r.from_id, r.to_id from relations r join given g on g.id = r.id
       where r.space_id = ${spaceId}
    ),
    moved as (
      update relations r set from_id = g."fromId", to_id = g."toId"
        from given g
       where r.space_id = ${spaceId} and r.id = g.id
      returning r.id
    )
    select from_id as end_id from was union select to_id from was
  `.execute(db);
  await recountDegrees(db, spaceId, [
    ...new Set([
      ...result.rows.map((row) => row.end_id),
      ...changes.flatMap((change) => [change.fromId, change.toId]),
    ]),
  ]);
}

/** Sets each existing entity's degree from its relations. */
export async function recountDegrees(db: Db, spaceId: string, entityIds: string[]): Promise<void> {
  await sql`
    insert into entity_degrees (space_id, entity_id, degree)
    select ${spaceId}, e.id,
           (select count(*)::int from relations r where r.space_id = ${spaceId} and r.from_id = e.id)
         + (select count(*)::int from relations r where r.space_id = ${spaceId} and r.to_id = e.id)
      from entities e
     where e.space_id = ${spaceId} and e.id = any(${entityIds}::uuid[])
    on conflict (space_id, entity_id) do update set degree = excluded.degree
  `.execute(db);
}

/**
 * Deletes entities that no longer hold observations or relations (a merge's
 * sources, once emptied), with their degree rows and per-type counts. No
 * event: the merge records its one `entity_merged`.
 */
export async function removeEmptiedEntities(
  db: Db,
  spaceId: string,
  entityIds: string[],
): Promise<void> {
  if (entityIds.length === 0) return;
  await sql`
    with undegreed as (
      delete from entity_degrees where space_id = ${spaceId} and entity_id = any(${entityIds}::uuid[])
    ),
    gone as (
      delete from entities where space_id = ${spaceId} and id = any(${entityIds}::uuid[])
      returning type
    ),
    lost as (select type, count(*)::int as count from gone group by type),
    counted as (
      update entity_type_counts t set count = t.count - l.count
        from lost l
       where t.space_id = ${spaceId} and t.type = l.type and t.count > l.count
    )
    delete from entity_type_counts t using lost l
     where t.space_id = ${spaceId} and t.type = l.type and t.count <= l.count
  `.execute(db);
}

/**
 * The entities other than `except` whose name or an alias is among `names`:
 * for each clashing name, the entity that has it (a write holds the account's
 * lock, so nothing can take a name between this read and the write).
 */
export async function nameHolders(
  db: Db,
  spaceId: string,
  names: string[],
  except: string[],
): Promise<{ given: string; id: string; name: string }[]> {
  if (names.length === 0) return [];
  const result = await sql<{ given: string; id: string; name: string }>`
    select g.name as given, e.id, e.name
      from unnest(${[...new Set(names)]}::text[]) as g(name)
      cross join lateral (
        (select e.id, e.name from entities e where e.space_id = ${spaceId} and e.name = g.name limit 1)
        union all
        (select e.id, e.name from entities e
          where e.space_id = ${spaceId} and e.aliases <> '{}' and e.aliases @> array[g.name]
          limit 2)
      ) e
     where e.id <> all(${except}::uuid[])
  `.execute(db);
  return result.rows;
}
