import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { planOnce } from '../../db/prepared.js';
import { runStaged, type Staging } from './changes.repository.js';
import { entityNamed } from './names.repository.js';
import { escapeLike } from '../../db/like.js';

/** Relations: their rows, by id, by ends, by name (the walks over them are walks.repository.ts). Every query is scoped by account. */

export interface RelationRow {
  id: string;
  from_id: string;
  to_id: string;
  type: string;
  created_at: Date;
  valid_from?: Date | null;
  valid_to?: Date | null;
}

export interface RelationWithEndsRow extends RelationRow {
  from_name: string;
  from_type: string;
  to_name: string;
  to_type: string;
}

export interface NodeRow {
  id: string;
  name: string;
  type: string;
  observations_count: number;
}

export interface NamedRelationRow {
  id: string;
  from_id: string;
  to_id: string;
  from_name: string;
  to_name: string;
  type: string;
}

/**
 * A relation touching given entities: the names of its ends that are not
 * among them (null for a given end, whose name the caller has; see `named`).
 */
export type TouchingRelationRow = Omit<NamedRelationRow, 'from_name' | 'to_name'> & {
  from_name: string | null;
  to_name: string | null;
};

/** Entities' names by id: what `named` takes for the given ends. */
export const namesOf = (rows: { id: string; name: string }[]): ReadonlyMap<string, string> =>
  new Map(rows.map((row) => [row.id, row.name]));

/**
 * The relations with both ends named, from `names` where the row has none;
 * a relation whose end has no known name (an entity deleted meanwhile) is left out.
 */
export function named(
  rows: TouchingRelationRow[],
  names: ReadonlyMap<string, string>,
): NamedRelationRow[] {
  return rows.flatMap((row) => {
    const from = row.from_name ?? names.get(row.from_id);
    const to = row.to_name ?? names.get(row.to_id);
    return from === undefined || to === undefined ? [] : [{ ...row, from_name: from, to_name: to }];
  });
}

const relationColumns = [
  'id',
  'from_id',
  'to_id',
  'type',
  'created_at',
  'valid_from',
  'valid_to',
] as const;

const returnedColumns = sql.join(relationColumns.map((column) => sql.ref(column)));

/** A relation to insert; id and date only on a lossless import. */
export interface RelationInsert {
  fromId: string;
  toId: string;
  type: string;
  id?: string | undefined;
  createdAt?: string | undefined;
  /** When it held in the world, as its writer said. */
  validFrom?: string | null | undefined;
  validTo?: string | null | undefined;
}

/**
 * The part of a relation-inserting statement after its `given` rows (id,
 * from_id, to_id, type, created_at, valid_from, valid_to, ord): inserts them
 * in order, skipping a triple or id that exists and a row whose end is
 * unknown (null), and raises both ends' degree.
 */
const insertGiven = (spaceId: string) => sql`
    inserted as (
      insert into relations (space_id, id, from_id, to_id, type, created_at, valid_from, valid_to)
      select ${spaceId}, coalesce(g.id, gen_random_uuid()), g.from_id, g.to_id, g.type,
             coalesce(g.created_at, clock_timestamp()), g.valid_from, g.valid_to
        from given g
       where g.from_id is not null and g.to_id is not null
       order by g.ord
      on conflict do nothing
      returning ${returnedColumns}, ordinal
    ),
    degrees as (
      insert into entity_degrees (space_id, entity_id, degree)
      select ${spaceId}, id, count(*)::int
        from (select from_id as id from inserted union all select to_id from inserted) ends
       group by id
      on conflict (space_id, entity_id)
      do update set degree = entity_degrees.degree + excluded.degree
    )`;

/** The ends of relations named by name: an entity's id by its name in the space, null when none. */
const endByName = (spaceId: string, name: RawBuilder<unknown>) =>
  sql`(select id from ${entityNamed(spaceId, name, sql`e.id`)} named)`;

/** stage_events (migration 030) for a statement's relations `rows` (a CTE), one event of `type` each. */
const stageRelations = (
  staging: Staging,
  type: 'relation_created' | 'relation_deleted',
  rows: 'inserted' | 'gone',
  missing: RawBuilder<unknown> = sql`'[]'::jsonb`,
) => sql`stage_events(
             ${staging.slot}::int,
             (select coalesce(jsonb_agg(jsonb_build_object(
                       'type', ${sql.lit(type)},
                       'payload', jsonb_build_object('relationId', r.id, 'id', r.id,
                                                     'fromEntityId', r.from_id, 'toEntityId', r.to_id,
                                                     'relationType', r.type))
                     order by r.ordinal), '[]')
                from ${sql.table(rows)} r),
             0,
             ${missing})`;

/** The CTE after a `gone` CTE of deleted relations: lowers both ends' degree. */
const lowerDegrees = (spaceId: string) => sql`
    degrees as (
      update entity_degrees e set degree = e.degree - d.count
        from (select id, count(*)::int as count
                from (select from_id as id from gone union all select to_id from gone) ends
               group by id) d
       where e.space_id = ${spaceId} and e.entity_id = d.id
    )`;

/**
 * Inserts relations in one statement, in the order given, raising both ends'
 * degree in the same statement; relations that exist already (same triple,
 * or a given id) are skipped. Returns the inserted ones in order.
 */
export async function insertRelations(
  db: Db,
  spaceId: string,
  relations: RelationInsert[],
): Promise<RelationRow[]> {
  if (relations.length === 0) return [];
  const batch = JSON.stringify(
    relations.map((relation) => ({
      id: relation.id,
      from_id: relation.fromId,
      to_id: relation.toId,
      type: relation.type,
      created_at: relation.createdAt,
      valid_from: relation.validFrom ?? null,
      valid_to: relation.validTo ?? null,
    })),
  );
  const result = await sql<RelationRow>`
    ${planOnce} with given as (
      select * from rows from (
        json_to_recordset(${batch}::json)
          as (id uuid, from_id uuid, to_id uuid, type text, created_at timestamptz,
              valid_from timestamptz, valid_to timestamptz)
      ) with ordinality as g(id, from_id, to_id, type, created_at, valid_from, valid_to, ord)
    ),
    ${insertGiven(spaceId)}
    select ${returnedColumns} from inserted order by ordinal
  `.execute(db);
  return result.rows;
}

/** A relation to insert between entities named by name. */
export interface NamedRelationInsert {
  from: string;
  to: string;
  type: string;
  validFrom?: string | null | undefined;
  validTo?: string | null | undefined;
}

/**
 * Inserts relations between entities named by name, as insertRelations does,
 * finding the ends in the same statement, which stages a `relation_created`
 * event per relation (migration 030) and is sent as `staging` says. When a
 * name matches no entity of the space the statement fails (MISSING_ENTITIES,
 * the names as JSON) and inserts nothing. Returns the inserted ones in order,
 * with their ends' names.
 */
export async function insertRelationsByName(
  db: Db,
  spaceId: string,
  relations: NamedRelationInsert[],
  staging: Staging,
): Promise<(RelationRow & { from_name: string; to_name: string })[]> {
  if (relations.length === 0) return [];
  const batch = JSON.stringify(
    relations.map((relation) => ({
      from_name: relation.from,
      to_name: relation.to,
      type: relation.type,
      valid_from: relation.validFrom ?? null,
      valid_to: relation.validTo ?? null,
    })),
  );
  const rows = await runStaged(
    db,
    sql<
      RelationRow & { from_name: string; to_name: string; ordinal: string; staged: boolean | null }
    >`
    ${planOnce} with named as (
      select * from rows from (
        json_to_recordset(${batch}::json)
          as (from_name text, to_name text, type text, valid_from timestamptz, valid_to timestamptz)
      ) with ordinality as g(from_name, to_name, type, valid_from, valid_to, ord)
    ),
    given as (
      select null::uuid as id, ${endByName(spaceId, sql`n.from_name`)} as from_id,
             ${endByName(spaceId, sql`n.to_name`)} as to_id,
             n.type, null::timestamptz as created_at, n.valid_from, n.valid_to, n.ord,
             n.from_name, n.to_name
        from named n
    ),
    ${insertGiven(spaceId)}
    select ${sql.join(relationColumns.map((column) => sql.ref(`i.${column}`)))},
           g.from_name, g.to_name, i.ordinal, null as staged
      from inserted i
      join given g on g.from_id = i.from_id and g.to_id = i.to_id and g.type = i.type
    union all
    select ${sql.join(relationColumns.map(() => sql`null`))}, null, null, null, ${stageRelations(
      staging,
      'relation_created',
      'inserted',
      sql`(select coalesce(jsonb_agg(distinct m.name), '[]')
             from given g
             cross join lateral (values (g.from_name, g.from_id), (g.to_name, g.to_id)) m(name, id)
            where m.id is null)`,
    )}
     order by ordinal
  `,
    staging,
  );
  return rows.flatMap(({ staged, ordinal: _, ...row }) => (staged === null ? [row] : []));
}

/** Deletes relations by id in one statement, lowering both ends' degree. */
export async function deleteRelations(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<RelationRow[]> {
  if (ids.length === 0) return [];
  const result = await sql<RelationRow>`
    with gone as (
      delete from relations where space_id = ${spaceId} and id = any(${ids}::uuid[])
      returning ${returnedColumns}, ordinal
    ),
    ${lowerDegrees(spaceId)}
    select ${returnedColumns} from gone order by ordinal
  `.execute(db);
  return result.rows;
}

/**
 * Deletes relations named by their ends' names and type, in one statement
 * that finds them, lowers their ends' degree and stages a `relation_deleted`
 * event per relation (migration 030), sent as `staging` says. Relations and
 * names that do not exist are skipped.
 */
export async function deleteRelationsByName(
  db: Db,
  spaceId: string,
  relations: { from: string; to: string; type: string }[],
  staging: Staging,
): Promise<void> {
  if (relations.length === 0) return;
  const batch = JSON.stringify(
    relations.map((relation) => ({
      from_name: relation.from,
      to_name: relation.to,
      type: relation.type,
    })),
  );
  await runStaged(
    db,
    sql<{ staged: boolean }>`
    ${planOnce} with given as (
      select ${endByName(spaceId, sql`n.from_name`)} as from_id,
             ${endByName(spaceId, sql`n.to_name`)} as to_id, n.type
        from json_to_recordset(${batch}::json) as n(from_name text, to_name text, type text)
    ),
    -- One probe of the triple's index per relation named: as a join, the
    -- generic plan could hash every relation of the space instead.
    found as (
      select f.id from given g
       cross join lateral (select r.id from relations r
                            where r.space_id = ${spaceId} and r.from_id = g.from_id
                              and r.to_id = g.to_id and r.type = g.type
                            limit 1) f
    ),
    gone as (
      delete from relations r
       where r.space_id = ${spaceId} and r.id in (select id from found)
      returning r.id, r.from_id, r.to_id, r.type, r.ordinal
    ),
    ${lowerDegrees(spaceId)}
    select ${stageRelations(staging, 'relation_deleted', 'gone')} as staged
  `,
    staging,
  );
}

/** The relations matching these (from, to, type) triples, in one statement. */
export async function findRelationsByTriples(
  db: Db,
  spaceId: string,
  triples: { fromId: string; toId: string; type: string }[],
): Promise<RelationRow[]> {
  if (triples.length === 0) return [];
  const batch = JSON.stringify(
    triples.map((triple) => ({ from_id: triple.fromId, to_id: triple.toId, type: triple.type })),
  );
  const result = await sql<RelationRow>`
    select r.id, r.from_id, r.to_id, r.type, r.created_at
      from json_to_recordset(${batch}::json) as g(from_id uuid, to_id uuid, type text)
      join relations r on r.space_id = ${spaceId} and r.from_id = g.from_id
                      and r.to_id = g.to_id and r.type = g.type
  `.execute(db);
  return result.rows;
}

export async function findRelation(
  db: Db,
  spaceId: string,
  id: string,
): Promise<RelationRow | undefined> {
  return db
    .selectFrom('relations')
    .select(relationColumns)
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateRelationType(
  db: Db,
  spaceId: string,
  id: string,
  type: string,
): Promise<RelationRow | undefined> {
  return db
    .updateTable('relations')
    .set({ type })
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .returning(relationColumns)
    .executeTakeFirst();
}

/** What the relations list filters and pages by (the present's, and history's as of a seq). */
export interface RelationListFilter {
  query?: string | undefined;
  types?: string[] | undefined;
  entityId?: string | undefined;
  limit: number;
  offset: number;
}

/**
 * Relations with both ends' names and types, newest first. `query` matches
 * either end's name or the type, case-insensitively; `types` keeps the given
 * types exactly; `entityId` keeps the relations touching that entity.
 *
 * Never a join of every relation with both its ends (decision 006): without
 * `query` or `entityId` the page is read down the `(space_id, ordinal)`
 * index and only its rows are joined to their ends. With them the matching
 * relations are gathered from indexes first — entities whose name matches
 * (trigram index) and their relations by `from_id` and by `to_id`, types that
 * match (one index probe per distinct type), or the entity's own relations —
 * and only the page is joined to names. The exact total is counted over ids.
 */
export async function listRelations(
  db: Db,
  spaceId: string,
  filter: RelationListFilter,
): Promise<{ rows: RelationWithEndsRow[]; total: number }> {
  const types = filter.types?.length ? filter.types : null;
  const typeFilter = types ? sql`and r.type = any(${types}::text[])` : sql``;
  const withEnds = (page: ReturnType<typeof sql>) => sql<RelationWithEndsRow>`
    select r.id, r.from_id, r.to_id, r.type, r.created_at, r.valid_from, r.valid_to,
           f.name as from_name, f.type as from_type, t.name as to_name, t.type as to_type
      from ${page} r
      cross join lateral (select name, type from entities
                           where space_id = ${spaceId} and id = r.from_id) f
      cross join lateral (select name, type from entities
                           where space_id = ${spaceId} and id = r.to_id) t
     order by r.ordinal desc
  `;

  if (!filter.query && !filter.entityId) {
    const page = sql`(select r.id, r.from_id, r.to_id, r.type, r.created_at, r.valid_from, r.valid_to, r.ordinal
                        from relations r
                       where r.space_id = ${spaceId} ${typeFilter}
                       order by r.ordinal desc
                       limit ${filter.limit} offset ${filter.offset})`;
    const [rows, counted] = await Promise.all([
      withEnds(page).execute(db),
      sql<{ total: number }>`
        select count(*)::int as total from relations r
         where r.space_id = ${spaceId} ${typeFilter}
      `.execute(db),
    ]);
    return { rows: rows.rows, total: counted.rows[0]?.total ?? 0 };
  }

  let hits;
  if (filter.entityId) {
    // The entity's own relations, then the query (if any) on their ends' names.
    const nameMatch = filter.query
      ? (() => {
          const contains = `%${escapeLike(filter.query.toLowerCase())}%`;
          return sql`and (lower(r.type) like ${contains}
                      or exists (select 1 from entities e
                                  where e.space_id = ${spaceId}
                                    and e.id in (r.from_id, r.to_id)
                                    and lower(e.name) like ${contains}))`;
        })()
      : sql``;
    hits = sql`
      select r.id, r.ordinal from relations r
       where r.space_id = ${spaceId} and r.from_id = ${filter.entityId}::uuid ${typeFilter} ${nameMatch}
      union
      select r.id, r.ordinal from relations r
       where r.space_id = ${spaceId} and r.to_id = ${filter.entityId}::uuid ${typeFilter} ${nameMatch}
    `;
  } else {
    const contains = `%${escapeLike(filter.query!.toLowerCase())}%`;
    hits = sql`
      select r.id, r.ordinal from relations r
        join named e on r.space_id = ${spaceId} and r.from_id = e.id
       where true ${typeFilter}
      union
      select r.id, r.ordinal from relations r
        join named e on r.space_id = ${spaceId} and r.to_id = e.id
       where true ${typeFilter}
      union
      select r.id, r.ordinal from relations r
       where r.space_id = ${spaceId} and r.type in (select type from kinds) ${typeFilter}
    `;
    hits = sql`
      named as materialized (
        select e.id from entities e
         where lower(e.name) like ${contains} and e.space_id = ${spaceId}
      ),
      kinds as (
        select type from relation_kinds where type is not null and lower(type) like ${contains}
      ),
      hits as materialized (${hits})`;
  }

  // Every distinct type, one index probe each (a loose scan of relations_by_type).
  const kinds = filter.entityId
    ? sql``
    : sql`recursive relation_kinds(type) as (
        (select type from relations where space_id = ${spaceId} order by type limit 1)
        union all
        select (select r.type from relations r
                 where r.space_id = ${spaceId} and r.type > k.type
                 order by r.type limit 1)
          from relation_kinds k where k.type is not null
      ),`;
  const ctes = filter.entityId ? sql`hits as materialized (${hits})` : hits;

  const result = await sql<RelationWithEndsRow & { total: number }>`
    with ${kinds} ${ctes}
    select p.id, p.from_id, p.to_id, p.type, p.created_at, p.valid_from, p.valid_to,
           f.name as from_name, f.type as from_type, t.name as to_name, t.type as to_type,
           (select count(*) from hits)::int as total
      from (select r.id, r.from_id, r.to_id, r.type, r.created_at, r.valid_from, r.valid_to, r.ordinal
              from (select id from hits order by ordinal desc
                     limit ${filter.limit} offset ${filter.offset}) h
              cross join lateral (select * from relations r
                                   where r.space_id = ${spaceId} and r.id = h.id) r) p
      cross join lateral (select name, type from entities
                           where space_id = ${spaceId} and id = p.from_id) f
      cross join lateral (select name, type from entities
                           where space_id = ${spaceId} and id = p.to_id) t
     order by p.ordinal desc
  `.execute(db);
  let total = result.rows[0]?.total;
  if (total === undefined) {
    const counted = await sql<{ total: number }>`
      with ${kinds} ${ctes} select count(*)::int as total from hits
    `.execute(db);
    total = counted.rows[0]?.total ?? 0;
  }
  return { rows: result.rows.map(({ total: _total, ...row }) => row), total };
}

export async function findRelationsByIds(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<RelationRow[]> {
  if (ids.length === 0) return [];
  const result = await sql<RelationRow>`
    select id, from_id, to_id, type, created_at from relations
     where space_id = ${spaceId} and id = any(${ids}::uuid[])
     order by ordinal
  `.execute(db);
  return result.rows;
}

/** Sets when a relation held in the world (null: not said). */
export async function setRelationValidity(
  db: Db,
  spaceId: string,
  id: string,
  validity: { validFrom: string | null; validTo: string | null },
): Promise<void> {
  await db
    .updateTable('relations')
    .set({ valid_from: validity.validFrom, valid_to: validity.validTo })
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .execute();
}
