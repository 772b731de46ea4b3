import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';
import type { NodeRow, RelationRow, TouchingRelationRow } from './relations.repository.js';
import { entitiesBy } from './entities.repository.js';

/** The graph's walks over relations: breadth-first from entities, neighbourhoods, the best connected. */

/**
 * Breadth-first from the entities of `start` (an expression giving a uuid
 * array), both directions, at most `depth` levels and `limit` entities, as
 * rows `(id, ord)`, nearest first. One statement, planned once: each step of
 * the recursion is one level — one index probe per frontier entity and
 * direction, as `relationsTouching` — and carries the ids seen so far, which
 * the next level skips. Within a level the entities kept at the limit are
 * any of that level.
 */
export function walkFrom(
  spaceId: string,
  start: RawBuilder<unknown>,
  options: { depth: number; limit: number },
) {
  const depth = hidden(sql<number>`${options.depth}::int`);
  const limit = hidden(sql<number>`${options.limit}::int`);
  const next = (from: 'from_id' | 'to_id', to: 'from_id' | 'to_id') => sql`
    select n.id from unnest(l.frontier) as given(id)
     cross join lateral (select ${sql.ref(to)} as id from relations
                          where space_id = ${spaceId} and ${sql.ref(from)} = given.id offset 0) n
     where n.id <> all(l.seen)`;
  return sql`
    with recursive levels(level, frontier, seen) as (
      select 0, s.ids, s.ids from (select (${start})[1:${limit}] as ids) s
      union all
      select l.level + 1, n.ids, l.seen || n.ids
        from levels l
        -- Fenced (offset 0), or the level's array would be computed twice.
        cross join lateral (select array(${next('from_id', 'to_id')} union ${next('to_id', 'from_id')}
                                         limit ${limit} - cardinality(l.seen)) as ids offset 0) n
       where l.level < ${depth} and cardinality(l.frontier) > 0 and cardinality(l.seen) < ${limit}
    )
    select w.id, w.ord
      from (select seen from levels order by level desc limit 1) l
      cross join unnest(l.seen) with ordinality as w(id, ord)`;
}

/** The ids `walkFrom` reaches from `start`, nearest first. */
export async function walk(
  db: Db,
  spaceId: string,
  start: string[],
  options: { depth: number; limit: number },
): Promise<string[]> {
  const result = await sql<{ id: string }>`
    ${planOnce} select id from (${walkFrom(spaceId, hidden(sql`${start}::uuid[]`), options)}) w
     order by ord
  `.execute(db);
  return result.rows.map((row) => row.id);
}

/**
 * What `walkFrom` reaches from one entity, with the relations among it, in
 * one statement; no nodes when the entity does not exist.
 */
export async function neighbourhood(
  db: Db,
  spaceId: string,
  rootId: string,
  options: { depth: number; limit: number },
): Promise<{ nodes: NodeRow[]; relations: Omit<RelationRow, 'created_at'>[] }> {
  const root = hidden(sql`${rootId}::uuid`);
  const result = await sql<{
    nodes: NodeRow[] | null;
    relations: Omit<RelationRow, 'created_at'>[] | null;
  }>`
    ${planOnce} with walked as materialized (
      ${walkFrom(spaceId, sql`array(select id from entities where space_id = ${spaceId} and id = ${root})`, options)}
    ),
    nodes as materialized (
      select e.id, e.name, e.type, e.observations_count, w.ord
        from walked w
        cross join lateral (select * from entities e
                             where e.space_id = ${spaceId} and e.id = w.id limit 1) e
    ),
    given as (select id from nodes)
    select (select json_agg(json_build_object('id', id, 'name', name, 'type', type,
                   'observations_count', observations_count) order by ord) from nodes) as nodes,
           (select json_agg(json_build_object('id', id, 'from_id', from_id, 'to_id', to_id,
                   'type', type) order by ordinal) from (${amongGiven(spaceId)}) r) as relations
  `.execute(db);
  const row = result.rows[0]!;
  return { nodes: row.nodes ?? [], relations: row.relations ?? [] };
}

/**
 * The best-connected entities (most relations first, then by id), skipping
 * `exclude`; entities without relations follow, by id, when too few have any.
 */
export async function bestConnected(
  db: Db,
  spaceId: string,
  exclude: string[],
  limit: number,
): Promise<string[]> {
  const connected = await sql<{ id: string }>`
    select entity_id as id from entity_degrees
     where space_id = ${spaceId} and degree > 0 and entity_id <> all(${exclude}::uuid[])
     order by degree desc, entity_id
     limit ${limit}
  `.execute(db);
  const ids = connected.rows.map((row) => row.id);
  if (ids.length === limit) return ids;
  const unconnected = await sql<{ id: string }>`
    select e.id from entities e
     where e.space_id = ${spaceId} and e.id <> all(${[...exclude, ...ids]}::uuid[])
       and not exists (select 1 from entity_degrees d
                        where d.space_id = e.space_id and d.entity_id = e.id and d.degree > 0)
     order by e.id
     limit ${limit - ids.length}
  `.execute(db);
  return [...ids, ...unconnected.rows.map((row) => row.id)];
}

export async function nodesByIds(db: Db, spaceId: string, ids: string[]): Promise<NodeRow[]> {
  return entitiesBy(db, spaceId, 'id', ids, ['id', 'name', 'type', 'observations_count']);
}

/** Relations whose two ends are both among `ids`: one probe per start, planned once. */
export async function relationsAmong(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<RelationRow[]> {
  if (ids.length === 0) return [];
  const result = await sql<RelationRow>`
    ${planOnce} with given as (select distinct id from unnest(${hidden(sql`${ids}::uuid[]`)}) as given(id))
    select id, from_id, to_id, type, created_at from (${amongGiven(spaceId)}) r
     order by ordinal
  `.execute(db);
  return result.rows;
}

/** The statement of `relationsAmong` over a CTE `given(id)` of distinct entity ids. */
function amongGiven(spaceId: string) {
  return sql`
    select r.* from given
      cross join lateral (select * from relations r
                           where r.space_id = ${spaceId} and r.from_id = given.id offset 0) r
     where r.to_id in (select id from given)`;
}

/**
 * Relations where either end is among `ids` (or, with `fromOnly`, the start),
 * oldest first, at most `limit` (null: all, for export), with the names of
 * the ends not among `ids`: the caller knows the names of its own entities
 * (`named` puts them in), so only the other ends are looked up.
 */
export async function relationsTouching(
  db: Db,
  spaceId: string,
  ids: string[],
  options: { fromOnly?: boolean; limit: number | null },
): Promise<TouchingRelationRow[]> {
  if (ids.length === 0) return [];
  const result = await sql<TouchingRelationRow>`
    ${planOnce} with given as (select distinct id from unnest(${hidden(sql`${ids}::uuid[]`)}) as given(id))
    select id, from_id, to_id, from_name, to_name, type
      from (${touchingGiven(spaceId, options)}) r
     order by ordinal
  `.execute(db);
  return result.rows;
}

/**
 * The statement of `relationsTouching` over a CTE `given(id)` of distinct
 * entity ids, with each relation's `ordinal` (the order to keep).
 */
export function touchingGiven(
  spaceId: string,
  options: { fromOnly?: boolean | undefined; limit: number | null },
) {
  // One index probe per given entity and direction, then the page, then one
  // primary-key probe per other end: a shape no parameter can change, so it is
  // planned once (decision 015). Planned for each call with `= any(…)` over
  // the ids, planning cost as much as running (3 ms on PGlite), and the
  // planner once hashed every entity of the account for a few hundred rows.
  // `offset 0` keeps each probe a probe: pulled up into a join, a plan made
  // while the table was small could hash every relation of the account. A
  // relation between two given entities, found by both probes, is kept once
  // by the `union` (a hash; filtering against the id list cost a comparison
  // per id and row: 10 ms more for 1,000 ids at 100k).
  const incoming = options.fromOnly
    ? sql``
    : sql`union
           select r.id, r.from_id, r.to_id, r.type, r.ordinal
             from given cross join lateral (
               select * from relations r
                where r.space_id = ${spaceId} and r.to_id = given.id offset 0) r`;
  // A given end's name is not read: `in` over the given ids is one hashed
  // lookup per row (half the primary-key probes for a search's relations).
  const nameOf = (end: 'from_id' | 'to_id') =>
    sql`case when ${sql.ref(`r.${end}`)} in (select id from given) then null
             else (select name from entities
                    where space_id = ${spaceId} and id = ${sql.ref(`r.${end}`)} limit 1) end`;
  return sql<TouchingRelationRow & { ordinal: string }>`
    select r.id, r.from_id, r.to_id, ${nameOf('from_id')} as from_name,
           ${nameOf('to_id')} as to_name, r.type, r.ordinal
      from (select * from (
              select r.id, r.from_id, r.to_id, r.type, r.ordinal
                from given cross join lateral (
                  select * from relations r
                   where r.space_id = ${spaceId} and r.from_id = given.id offset 0) r
              ${incoming}) r
             order by r.ordinal
             limit ${options.limit}) r`;
}
