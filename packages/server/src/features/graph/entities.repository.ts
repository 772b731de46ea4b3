import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';
import { runStaged, type Staging } from './changes.repository.js';
import { entityNamed } from './names.repository.js';
import type { ObservationRow } from './observations.repository.js';

/** Entities: rows, type counts, the stored-bytes counter. Every query is scoped by account. */

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  aliases: string[];
  observations_count: number;
  created_at: Date;
  updated_at: Date;
}

export const entityColumns = [
  'id',
  'name',
  'type',
  'metadata',
  'aliases',
  'observations_count',
  'created_at',
  'updated_at',
] as const;

export async function findEntity(
  db: Db,
  spaceId: string,
  id: string,
): Promise<EntityRow | undefined> {
  return db
    .selectFrom('entities')
    .select(entityColumns)
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * One entity with its first `maxObservations` observations (in their order),
 * read by one statement: what a read of one entity needs.
 */
export async function findEntityWithObservations(
  db: Db,
  spaceId: string,
  id: string,
  maxObservations: number,
): Promise<{ row: EntityRow; observations: ObservationRow[] } | undefined> {
  const columns = sql.join(entityColumns.map((column) => sql.ref(`e.${column}`)));
  const result = await sql<EntityRow & { observations: StoredObservation[] | null }>`
    ${planOnce} select ${columns},
           (select json_agg(json_build_object('id', o.id, 'content', o.content,
                                              'metadata', o.metadata, 'position', o.position,
                                              'created_at', o.created_at,
                                              'valid_from', o.valid_from, 'valid_to', o.valid_to)
                            order by o.position, o.created_at)
              from (select * from observations
                     where space_id = ${spaceId} and entity_id = e.id
                     order by position, created_at
                     limit least(e.observations_count, ${maxObservations})) o) as observations
      from entities e
     where e.space_id = ${spaceId} and e.id = ${id}
  `.execute(db);
  const found = result.rows[0];
  if (!found) return undefined;
  const { observations, ...row } = found;
  return { row, observations: storedObservations(row.id, observations) };
}

/**
 * The account's entities whose name (or id) is among `keys`: one key probe
 * per distinct key, one array parameter however many, planned once
 * (decision 015). Not `name = any(…)`: for a relation batch's 1,000 names
 * the planner chose a scan of every entity of the account (15 ms at 100k,
 * growing with the account) over 1,000 probes (4 ms). The list is `hidden`
 * so that the plan is made once for short lists too.
 */
export async function entitiesBy<Row>(
  db: Db,
  spaceId: string,
  by: 'name' | 'id',
  keys: string[],
  columns: readonly string[],
): Promise<(Row & { key: string })[]> {
  if (keys.length === 0) return [];
  const entity =
    by === 'name'
      ? entityNamed(spaceId, sql`given.key`)
      : sql`(select * from entities e where e.space_id = ${spaceId} and e.id = given.key limit 1)`;
  const { rows } = await sql<Row & { key: string }>`
    ${planOnce} select ${sql.join(columns.map((column) => sql.ref(`e.${column}`)))}, given.key::text as key
      from unnest(${hidden(sql`${[...new Set(keys)]}::${sql.raw(by === 'id' ? 'uuid' : 'text')}[]`)}) as given(key)
      cross join lateral ${entity} e
  `.execute(db);
  return rows;
}

export async function findEntitiesByName(
  db: Db,
  spaceId: string,
  names: string[],
): Promise<(EntityRow & { key: string })[]> {
  return entitiesBy(db, spaceId, 'name', names, entityColumns);
}

/** What a write needs to know of an entity it names: no metadata, no timestamps to parse. */
export interface EntityKey {
  id: string;
  name: string;
  type: string;
}

/** The named entities' keys, each with the name it was found by (`key`: its name or an alias; a relation batch names up to 2 × 100,000 of them). */
export async function findEntityKeysByName(
  db: Db,
  spaceId: string,
  names: string[],
): Promise<(EntityKey & { key: string })[]> {
  return entitiesBy(db, spaceId, 'name', names, ['id', 'name', 'type']);
}

/**
 * Newest first; the total comes from the per-type counts, not a count over
 * every row. With `after` (an entity id) the page starts right after that
 * entity, read by key from `(space_id, ordinal)` or, with a type filter,
 * `(space_id, type, ordinal)` (migration 020): a late page costs what the
 * first does. When `after` names no entity of the account (it was deleted
 * since), the page skips `offset` rows instead.
 */
export async function listEntities(
  db: Db,
  spaceId: string,
  filter: {
    types?: string[] | undefined;
    limit: number;
    offset: number;
    after?: string | undefined;
  },
): Promise<{ rows: EntityRow[]; total: number }> {
  let query = db.selectFrom('entities').select(entityColumns).where('space_id', '=', spaceId);
  let totalQuery = db
    .selectFrom('entity_type_counts')
    .select(sql<number>`coalesce(sum(count), 0)::int`.as('total'))
    .where('space_id', '=', spaceId);
  if (filter.types?.length) {
    query = query.where('type', 'in', filter.types);
    totalQuery = totalQuery.where('type', 'in', filter.types);
  }
  const boundary = filter.after ? await ordinalOf(db, spaceId, filter.after) : undefined;
  query =
    boundary === undefined
      ? query.offset(filter.offset)
      : query.where('ordinal', '<', sql<string>`${boundary}::bigint`);
  const [rows, total] = await Promise.all([
    query.orderBy('ordinal', 'desc').limit(filter.limit).execute(),
    totalQuery.executeTakeFirstOrThrow(),
  ]);
  return { rows, total: total.total };
}

/** An entity's place in creation order: kept on the server, never put in a cursor. */
async function ordinalOf(db: Db, spaceId: string, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('entities')
    .select(sql<string>`ordinal::text`.as('ordinal'))
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.ordinal;
}

export async function updateEntity(
  db: Db,
  spaceId: string,
  id: string,
  changes: {
    name: string;
    type: string;
    metadata?: Record<string, unknown> | undefined;
    aliases?: string[] | undefined;
  },
): Promise<EntityRow | undefined> {
  return db
    .updateTable('entities')
    .set({
      name: changes.name,
      type: changes.type,
      ...(changes.metadata ? { metadata: JSON.stringify(changes.metadata) } : {}),
      ...(changes.aliases ? { aliases: changes.aliases } : {}),
      updated_at: new Date(),
    })
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .returning(entityColumns)
    .executeTakeFirst();
}

/** Keeps the per-type counts in step with entity writes: +1 on create, -1 on delete. */
export async function adjustTypeCount(
  db: Db,
  spaceId: string,
  type: string,
  delta: number,
): Promise<void> {
  await db
    .insertInto('entity_type_counts')
    .values({ space_id: spaceId, type, count: delta })
    .onConflict((oc) =>
      oc.columns(['space_id', 'type']).doUpdateSet({
        count: sql`entity_type_counts.count + ${delta}`,
      }),
    )
    .execute();
  if (delta < 0) {
    await db
      .deleteFrom('entity_type_counts')
      .where('space_id', '=', spaceId)
      .where('type', '=', type)
      .where('count', '<=', 0)
      .execute();
  }
}

/** An entity to insert with its first observations (in their order). */
export interface EntityInsert {
  /** A fresh uuid from the caller, or the one kept on a lossless import. */
  id: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  /** Kept on an import and when a revert brings an entity back. */
  aliases?: string[] | undefined;
  observations: FirstObservation[];
  createdAt?: string | undefined;
  updatedAt?: string | undefined;
}

/** An observation of a new entity; id and date only on a lossless import. */
export interface FirstObservation {
  content: string;
  metadata?: Record<string, unknown> | undefined;
  id?: string | undefined;
  createdAt?: string | undefined;
  validFrom?: string | undefined;
  validTo?: string | undefined;
}

/** A created entity with the observations stored with it. */
export type CreatedEntityRow = EntityRow & { observations: ObservationRow[] };

/**
 * Inserts entities with their observations (numbered from 0 per entity), the
 * observation counts and the per-type counts, all in one statement, in the
 * order given; an entity whose name (or id) exists already is skipped with its
 * observations. The batch travels as two JSON parameters, so its size is
 * bounded by memory, not by the protocol's 65,535 parameters. Metadata is
 * taken as `json`, its text as JSON.stringify wrote it: never through
 * `jsonb`, which would sort its keys (migration 013). The statement stages an
 * `entity_created` event per entity (migration 030) and is sent as `staging`
 * says.
 */
export async function insertEntities(
  db: Db,
  spaceId: string,
  entities: EntityInsert[],
  staging: Staging,
): Promise<CreatedEntityRow[]> {
  if (entities.length === 0) return [];
  const entityBatch = JSON.stringify(
    entities.map((entity) => ({
      id: entity.id,
      name: entity.name,
      type: entity.type,
      metadata: entity.metadata,
      aliases: entity.aliases ?? [],
      n: entity.observations.length,
      created_at: entity.createdAt,
      updated_at: entity.updatedAt,
    })),
  );
  const observationBatch = JSON.stringify(
    entities.flatMap((entity) =>
      entity.observations.map((observation) => ({
        id: observation.id,
        entity_id: entity.id,
        content: observation.content,
        metadata: observation.metadata,
        created_at: observation.createdAt,
        valid_from: observation.validFrom ?? null,
        valid_to: observation.validTo ?? null,
      })),
    ),
  );
  const columns = sql.join(entityColumns.map((column) => sql.ref(`i.${column}`)));
  // Only an import or a revert brings aliases: a create's statement (its own
  // plan) leaves out the per-row check it would not use (bench/README.md).
  const keptAliases = entities.some((entity) => entity.aliases?.length)
    ? sql`-- An alias another entity has as its name or alias is left out (an import's).
          array(select a from unnest(g.aliases) a
                 where a <> g.name
                   and not exists (select 1 from entities x
                                    where x.space_id = ${spaceId}
                                      and (x.name = a or (x.aliases <> '{}' and x.aliases @> array[a]))))`
    : sql`'{}'::text[]`;
  const rows = await runStaged(
    db,
    sql<
      EntityRow & {
        observations: StoredObservation[] | null;
        ordinal: string | null;
        staged: boolean | null;
      }
    >`
    ${planOnce} with given as (
      select * from rows from (
        json_to_recordset(${entityBatch}::json)
          as (id uuid, name text, type text, metadata json, aliases text[], n int,
              created_at timestamptz, updated_at timestamptz)
      ) with ordinality as g(id, name, type, metadata, aliases, n, created_at, updated_at, ord)
    ),
    given_observations as (
      select * from rows from (
        json_to_recordset(${observationBatch}::json)
          as (id uuid, entity_id uuid, content text, metadata json, created_at timestamptz,
              valid_from timestamptz, valid_to timestamptz)
      ) with ordinality as o(id, entity_id, content, metadata, created_at, valid_from, valid_to, ord)
    ),
    inserted as (
      insert into entities (space_id, id, name, type, metadata, aliases, observations_count,
                            created_at, updated_at)
      select ${spaceId}, g.id, g.name, g.type, g.metadata,
             ${keptAliases},
             g.n,
             coalesce(g.created_at, c.now), coalesce(g.updated_at, g.created_at, c.now)
        from given g cross join (select clock_timestamp() as now) c
       -- A name another entity goes by is that entity's: skipped as existing.
       where not exists (select 1 from entities a
                          where a.space_id = ${spaceId} and a.aliases <> '{}'
                            and a.aliases @> array[g.name])
       order by g.ord
      on conflict do nothing
      returning ${sql.join(entityColumns.map((column) => sql.ref(column)))}, ordinal
    ),
    counted as (
      insert into entity_type_counts (space_id, type, count)
      select ${spaceId}, type, count(*)::int from inserted group by type
      on conflict (space_id, type) do update set count = entity_type_counts.count + excluded.count
    ),
    observed as (
      insert into observations (space_id, id, entity_id, content, metadata, position, created_at,
                                valid_from, valid_to)
      select ${spaceId}, coalesce(o.id, gen_random_uuid()), o.entity_id, o.content, o.metadata,
             (row_number() over (partition by o.entity_id order by o.ord) - 1)::int,
             coalesce(o.created_at, clock_timestamp()), o.valid_from, o.valid_to
        from given_observations o join inserted i on i.id = o.entity_id
       order by o.ord
      returning id, entity_id, content, metadata, position, created_at, valid_from, valid_to
    )
    select ${columns}, b.observations, i.ordinal, null as staged
      from inserted i
      left join (
        select entity_id,
               json_agg(json_build_object('id', id, 'content', content, 'metadata', metadata,
                                          'position', position, 'created_at', created_at,
                                          'valid_from', valid_from, 'valid_to', valid_to)
                        order by position) as observations
          from observed group by entity_id
      ) b on b.entity_id = i.id
    union all
    select ${sql.join(entityColumns.map(() => sql`null`))}, null, null, stage_events(
             ${staging.slot}::int,
             (select coalesce(jsonb_agg(jsonb_build_object(
                       'type', 'entity_created',
                       'payload', jsonb_build_object('entityId', i.id, 'id', i.id, 'name', i.name, 'type', i.type))
                     order by i.ordinal), '[]')
                from inserted i),
             (select coalesce(max(i.observations_count), 0) from inserted i),
             '[]')
     order by ordinal
  `,
    staging,
  );
  return rows.flatMap(({ observations, staged, ordinal: _, ...row }) =>
    staged === null ? [{ ...row, observations: storedObservations(row.id, observations) }] : [],
  );
}

/** An observation as the insert's JSON answer carries it. */
type StoredObservation = Omit<ObservationRow, 'entity_id' | 'created_at'> & {
  created_at: string;
  valid_from?: string | null;
  valid_to?: string | null;
};

/** Observation rows from an entity's JSON list of them. */
const storedObservations = (entityId: string, stored: StoredObservation[] | null) =>
  (stored ?? []).map((observation) => ({
    ...observation,
    entity_id: entityId,
    created_at: new Date(observation.created_at),
    valid_from: observation.valid_from ? new Date(observation.valid_from) : null,
    valid_to: observation.valid_to ? new Date(observation.valid_to) : null,
  }));

/**
 * Deletes the entities named by id or by name (`by`; unknown keys are
 * skipped) with their observations and relations, lowering the degree of the
 * other ends of those relations, dropping their own, and lowering the
 * per-type counts (a type left with none is dropped): one statement whatever
 * the number of keys. The database has no cascade to do this (decision 016).
 * The statement stages an `entity_deleted` event per entity (migration 030)
 * and is sent as `staging` says. Returns the deleted entities in the order
 * named.
 */
export async function deleteEntities(
  db: Db,
  spaceId: string,
  keys: string[],
  by: 'id' | 'name',
  staging: Staging,
): Promise<EntityRow[]> {
  if (keys.length === 0) return [];
  const rows = await runStaged(
    db,
    sql<EntityRow & { ord: string | null; staged: boolean | null }>`
    ${planOnce} with named as (
      select e.id, min(k.ord) as ord
        from unnest(${keys}::text[]) with ordinality as k(key, ord)
        -- A probe per key, never a scan of the space's entities.
        cross join lateral ${
          by === 'name'
            ? entityNamed(spaceId, sql`k.key`, sql`e.id`)
            : sql`(select e.id from entities e
                    where e.space_id = ${spaceId} and e.id = k.key::uuid limit 1)`
        } e
       group by e.id
    ),
    outgoing as (
      delete from relations where space_id = ${spaceId} and from_id in (select id from named)
      returning to_id as other
    ),
    incoming as (
      delete from relations
       where space_id = ${spaceId} and to_id in (select id from named)
         and from_id not in (select id from named)
      returning from_id as other
    ),
    observed as (
      delete from observations where space_id = ${spaceId} and entity_id in (select id from named)
    ),
    lowered as (
      update entity_degrees d set degree = d.degree - n.count
        from (select other, count(*)::int as count
                from (select other from outgoing union all select other from incoming) ends
               where other not in (select id from named) group by other) n
       where d.space_id = ${spaceId} and d.entity_id = n.other
    ),
    undegreed as (
      delete from entity_degrees where space_id = ${spaceId} and entity_id in (select id from named)
    ),
    gone as (
      delete from entities e using named n
       where e.space_id = ${spaceId} and e.id = n.id
      returning ${sql.join(entityColumns.map((column) => sql.ref(`e.${column}`)))}, n.ord
    ),
    lost as (
      select g.type, count(*)::int as count from gone g group by g.type
    ),
    counted as (
      update entity_type_counts t set count = t.count - l.count
        from lost l
       where t.space_id = ${spaceId} and t.type = l.type and t.count > l.count
    ),
    emptied as (
      delete from entity_type_counts t using lost l
       where t.space_id = ${spaceId} and t.type = l.type and t.count <= l.count
    )
    select ${sql.join(entityColumns.map((column) => sql.ref(`g.${column}`)))}, g.ord, null as staged
      from gone g
    union all
    select ${sql.join(entityColumns.map(() => sql`null`))}, null, stage_events(
             ${staging.slot}::int,
             (select coalesce(jsonb_agg(jsonb_build_object(
                       'type', 'entity_deleted',
                       'payload', jsonb_build_object('entityId', g.id, 'id', g.id,
                                                     'name', g.name, 'type', g.type))
                     order by g.ord), '[]')
                from gone g),
             0,
             '[]')
     order by ord
  `,
    staging,
  );
  return rows.flatMap(({ ord: _, staged, ...row }) => (staged === null ? [row] : []));
}

/** Entities in creation order, for reading the whole graph page by page. */
export async function pageEntities(
  db: Db,
  spaceId: string,
  page: { limit: number; offset: number },
): Promise<EntityRow[]> {
  return db
    .selectFrom('entities')
    .select(entityColumns)
    .where('space_id', '=', spaceId)
    .orderBy('ordinal')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function findEntitiesByIds(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<EntityRow[]> {
  return entitiesBy(db, spaceId, 'id', ids, entityColumns);
}

/** Bytes the account stores (kept by triggers in the write transaction). */
export async function storedBytes(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select(sql<number>`stored_bytes::float8`.as('bytes'))
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.bytes ?? 0;
}
