import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** All SQL of the graph: entities, observations, relations, type counts. Every query is scoped by account. */

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  observations_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface ObservationRow {
  id: string;
  entity_id: string;
  content: string;
  metadata: Record<string, unknown> | null;
  position: number;
  created_at: Date;
}

export interface RelationRow {
  id: string;
  from_id: string;
  to_id: string;
  type: string;
  created_at: Date;
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

const entityColumns = [
  'id',
  'name',
  'type',
  'metadata',
  'observations_count',
  'created_at',
  'updated_at',
] as const;

/** `a%b_c\` → `a\%b\_c\\`, so user text is matched literally inside LIKE patterns. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

// ── entities ────────────────────────────────────────────────────────────────

export async function insertEntity(
  db: Db,
  accountId: string,
  entity: { name: string; type: string; metadata: Record<string, unknown> },
): Promise<EntityRow | undefined> {
  return db
    .insertInto('entities')
    .values({
      account_id: accountId,
      name: entity.name,
      type: entity.type,
      metadata: JSON.stringify(entity.metadata),
    })
    .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
    .returning(entityColumns)
    .executeTakeFirst();
}

export async function findEntity(
  db: Db,
  accountId: string,
  id: string,
): Promise<EntityRow | undefined> {
  return db
    .selectFrom('entities')
    .select(entityColumns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findEntitiesByName(
  db: Db,
  accountId: string,
  names: string[],
): Promise<EntityRow[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('entities')
    .select(entityColumns)
    .where('account_id', '=', accountId)
    .where('name', 'in', names)
    .execute();
}

export async function countEntities(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('entity_type_counts')
    .select(sql<number>`coalesce(sum(count), 0)::int`.as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.total;
}

/** Newest first; the total comes from the per-type counts, not a count over every row. */
export async function listEntities(
  db: Db,
  accountId: string,
  filter: { types?: string[] | undefined; limit: number; offset: number },
): Promise<{ rows: EntityRow[]; total: number }> {
  let query = db.selectFrom('entities').select(entityColumns).where('account_id', '=', accountId);
  let totalQuery = db
    .selectFrom('entity_type_counts')
    .select(sql<number>`coalesce(sum(count), 0)::int`.as('total'))
    .where('account_id', '=', accountId);
  if (filter.types?.length) {
    query = query.where('type', 'in', filter.types);
    totalQuery = totalQuery.where('type', 'in', filter.types);
  }
  const [rows, total] = await Promise.all([
    query.orderBy('ordinal', 'desc').limit(filter.limit).offset(filter.offset).execute(),
    totalQuery.executeTakeFirstOrThrow(),
  ]);
  return { rows, total: total.total };
}

/**
 * Case-insensitive substring search over name, type and observation text,
 * ranked: exact name, name prefix, name substring, type, observation.
 * Names and observations are found through trigram indexes that lead with the
 * account; types through the small per-type count table.
 */
export async function searchEntities(
  db: Db,
  accountId: string,
  filter: {
    query: string;
    types?: string[] | undefined;
    limit: number;
    offset: number;
  },
): Promise<{ rows: EntityRow[]; total: number }> {
  const term = filter.query.toLowerCase();
  const contains = `%${escapeLike(term)}%`;
  const prefix = `${escapeLike(term)}%`;
  const types = filter.types?.length ? filter.types : null;
  const typeFilter = types ? sql`and e.type = any(${types}::text[])` : sql``;

  // Enough rows of each kind to fill the page; name hits outrank the rest, so
  // types and observations are only read when names did not fill it.
  const k = filter.offset + filter.limit;

  const page = sql<EntityRow>`
    with name_hits as (
      (select e.id, 0 as rank, lower(e.name) as lname from entities e
        where e.account_id = ${accountId} and lower(e.name) = ${term} ${typeFilter})
      union all
      (select e.id, 1, lower(e.name) from entities e
        where e.account_id = ${accountId} and lower(e.name) like ${prefix}
          and lower(e.name) <> ${term} ${typeFilter}
        order by lower(e.name), e.id limit ${k})
      union all
      (select e.id, 2, lower(e.name) from entities e
        where e.account_id = ${accountId} and lower(e.name) like ${contains}
          and lower(e.name) not like ${prefix} ${typeFilter}
        order by lower(e.name), e.id limit ${k})
    ),
    other_hits as (
      select e.id, 3 as rank, lower(e.name) as lname from entities e
       where (select count(*) from name_hits) < ${k}
         and e.account_id = ${accountId} ${typeFilter}
         and e.type in (select t.type from entity_type_counts t
                         where t.account_id = ${accountId} and lower(t.type) like ${contains})
      union all
      select e.id, 4, lower(e.name)
        from (select distinct o.entity_id from observations o
               where (select count(*) from name_hits) < ${k}
                 and o.account_id = ${accountId} and lower(o.content) like ${contains}) o
        join entities e on e.account_id = ${accountId} and e.id = o.entity_id
       where true ${typeFilter}
    ),
    ranked as (
      select id, min(rank) as rank, min(lname) as lname
        from (select * from name_hits union all select * from other_hits) h
       group by id
       order by 2, 3, 1
       limit ${k}
    )
    select e.id, e.name, e.type, e.metadata, e.observations_count, e.created_at, e.updated_at
      from ranked r
      join entities e on e.account_id = ${accountId} and e.id = r.id
     order by r.rank, r.lname, r.id
    offset ${filter.offset}
  `.execute(db);

  // The exact total counts ids only: no join back, no window over every match.
  const total = sql<{ total: number }>`
    select count(*)::int as total from (
      select e.id from entities e
       where e.account_id = ${accountId} and lower(e.name) like ${contains} ${typeFilter}
      union
      select e.id from entities e
       where e.account_id = ${accountId} ${typeFilter}
         and e.type in (select t.type from entity_type_counts t
                         where t.account_id = ${accountId} and lower(t.type) like ${contains})
      union
      select o.entity_id from observations o
       ${types ? sql`join entities e on e.account_id = o.account_id and e.id = o.entity_id` : sql``}
       where o.account_id = ${accountId} and lower(o.content) like ${contains} ${typeFilter}
    ) matches
  `.execute(db);

  const [rows, counted] = await Promise.all([page, total]);
  return { rows: rows.rows, total: counted.rows[0]?.total ?? 0 };
}

export async function updateEntity(
  db: Db,
  accountId: string,
  id: string,
  changes: {
    name: string;
    type: string;
    metadata?: Record<string, unknown> | undefined;
  },
): Promise<EntityRow | undefined> {
  return db
    .updateTable('entities')
    .set({
      name: changes.name,
      type: changes.type,
      ...(changes.metadata ? { metadata: JSON.stringify(changes.metadata) } : {}),
      updated_at: new Date(),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(entityColumns)
    .executeTakeFirst();
}

export async function touchEntity(db: Db, accountId: string, id: string): Promise<void> {
  await db
    .updateTable('entities')
    .set({ updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/**
 * Deletes the entity; its observations and relations go by cascade. The other
 * ends of its relations lose degree first, in the same transaction.
 */
export async function deleteEntity(
  db: Db,
  accountId: string,
  id: string,
): Promise<EntityRow | undefined> {
  await sql`
    update entities e set degree = e.degree - n.count
      from (select case when from_id = ${id} then to_id else from_id end as other,
                   count(*)::int as count
              from relations
             where account_id = ${accountId} and (from_id = ${id} or to_id = ${id})
             group by 1) n
     where e.account_id = ${accountId} and e.id = n.other
  `.execute(db);
  return db
    .deleteFrom('entities')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(entityColumns)
    .executeTakeFirst();
}

/** Keeps the per-type counts in step with entity writes: +1 on create, -1 on delete. */
export async function adjustTypeCount(
  db: Db,
  accountId: string,
  type: string,
  delta: number,
): Promise<void> {
  await db
    .insertInto('entity_type_counts')
    .values({ account_id: accountId, type, count: delta })
    .onConflict((oc) =>
      oc.columns(['account_id', 'type']).doUpdateSet({
        count: sql`entity_type_counts.count + ${delta}`,
      }),
    )
    .execute();
  if (delta < 0) {
    await db
      .deleteFrom('entity_type_counts')
      .where('account_id', '=', accountId)
      .where('type', '=', type)
      .where('count', '<=', 0)
      .execute();
  }
}

export async function listTypeCounts(
  db: Db,
  accountId: string,
): Promise<{ type: string; count: number }[]> {
  return db
    .selectFrom('entity_type_counts')
    .select(['type', 'count'])
    .where('account_id', '=', accountId)
    .where('count', '>', 0)
    .orderBy('count', 'desc')
    .orderBy('type')
    .execute();
}

// ── observations ────────────────────────────────────────────────────────────

export async function listObservations(
  db: Db,
  accountId: string,
  entityIds: string[],
): Promise<ObservationRow[]> {
  if (entityIds.length === 0) return [];
  return db
    .selectFrom('observations')
    .select(['id', 'entity_id', 'content', 'metadata', 'position', 'created_at'])
    .where('account_id', '=', accountId)
    .where('entity_id', 'in', entityIds)
    .orderBy('entity_id')
    .orderBy('position')
    .orderBy('created_at')
    .execute();
}

/**
 * Each entity's first `take` observations (in their order), entities in the
 * order given: one index scan per entity, never more rows than asked for.
 */
export async function takeObservations(
  db: Db,
  accountId: string,
  wanted: { id: string; take: number }[],
): Promise<ObservationRow[]> {
  const asked = wanted.filter((item) => item.take > 0);
  if (asked.length === 0) return [];
  const result = await sql<ObservationRow>`
    select o.id, o.entity_id, o.content, o.metadata, o.position, o.created_at
      from unnest(${asked.map((item) => item.id)}::uuid[], ${asked.map((item) => item.take)}::int[])
           with ordinality as e(id, take, ord)
      cross join lateral (
        select * from observations
         where account_id = ${accountId} and entity_id = e.id
         order by position, created_at
         limit e.take
      ) o
     order by e.ord, o.position, o.created_at
  `.execute(db);
  return result.rows;
}

/** Appends observations after the entity's last one and keeps its count. */
export async function insertObservations(
  db: Db,
  accountId: string,
  entityId: string,
  items: { content: string; metadata?: Record<string, unknown> | undefined }[],
): Promise<ObservationRow[]> {
  if (items.length === 0) return [];
  const last = await db
    .selectFrom('observations')
    .select(sql<number>`coalesce(max(position), -1)::int`.as('position'))
    .where('account_id', '=', accountId)
    .where('entity_id', '=', entityId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .insertInto('observations')
    .values(
      items.map((item, index) => ({
        account_id: accountId,
        entity_id: entityId,
        content: item.content,
        metadata: item.metadata ? JSON.stringify(item.metadata) : null,
        position: last.position + 1 + index,
      })),
    )
    .returning(['id', 'entity_id', 'content', 'metadata', 'position', 'created_at'])
    .execute();
  await adjustObservationCount(db, accountId, entityId, rows.length);
  return rows;
}

export async function deleteObservations(
  db: Db,
  accountId: string,
  entityId: string,
  ids: string[],
): Promise<number> {
  if (ids.length === 0) return 0;
  const deleted = await db
    .deleteFrom('observations')
    .where('account_id', '=', accountId)
    .where('entity_id', '=', entityId)
    .where('id', 'in', ids)
    .returning('id')
    .execute();
  await adjustObservationCount(db, accountId, entityId, -deleted.length);
  return deleted.length;
}

/** Sets the order (and, when given, the metadata) of kept observations. */
export async function updateObservation(
  db: Db,
  accountId: string,
  id: string,
  changes: { position: number; metadata?: Record<string, unknown> | undefined },
): Promise<void> {
  await db
    .updateTable('observations')
    .set({
      position: changes.position,
      ...(changes.metadata ? { metadata: JSON.stringify(changes.metadata) } : {}),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

async function adjustObservationCount(
  db: Db,
  accountId: string,
  entityId: string,
  delta: number,
): Promise<void> {
  if (delta === 0) return;
  await db
    .updateTable('entities')
    .set({ observations_count: sql`observations_count + ${delta}` })
    .where('account_id', '=', accountId)
    .where('id', '=', entityId)
    .execute();
}

// ── relations ───────────────────────────────────────────────────────────────

const relationColumns = ['id', 'from_id', 'to_id', 'type', 'created_at'] as const;

/** Inserts the relation and raises both ends' degree; undefined when it already exists. */
export async function insertRelation(
  db: Db,
  accountId: string,
  relation: { fromId: string; toId: string; type: string },
): Promise<RelationRow | undefined> {
  const row = await db
    .insertInto('relations')
    .values({
      account_id: accountId,
      from_id: relation.fromId,
      to_id: relation.toId,
      type: relation.type,
    })
    .onConflict((oc) => oc.columns(['account_id', 'from_id', 'to_id', 'type']).doNothing())
    .returning(relationColumns)
    .executeTakeFirst();
  if (row) await adjustDegree(db, accountId, [row.from_id, row.to_id], 1);
  return row;
}

export async function findRelation(
  db: Db,
  accountId: string,
  id: string,
): Promise<RelationRow | undefined> {
  return db
    .selectFrom('relations')
    .select(relationColumns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findRelationByTriple(
  db: Db,
  accountId: string,
  triple: { fromId: string; toId: string; type: string },
): Promise<RelationRow | undefined> {
  return db
    .selectFrom('relations')
    .select(relationColumns)
    .where('account_id', '=', accountId)
    .where('from_id', '=', triple.fromId)
    .where('to_id', '=', triple.toId)
    .where('type', '=', triple.type)
    .executeTakeFirst();
}

export async function updateRelationType(
  db: Db,
  accountId: string,
  id: string,
  type: string,
): Promise<RelationRow | undefined> {
  return db
    .updateTable('relations')
    .set({ type })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(relationColumns)
    .executeTakeFirst();
}

export async function deleteRelation(
  db: Db,
  accountId: string,
  id: string,
): Promise<RelationRow | undefined> {
  const row = await db
    .deleteFrom('relations')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(relationColumns)
    .executeTakeFirst();
  if (row) await adjustDegree(db, accountId, [row.from_id, row.to_id], -1);
  return row;
}

async function adjustDegree(
  db: Db,
  accountId: string,
  entityIds: string[],
  delta: number,
): Promise<void> {
  await db
    .updateTable('entities')
    .set({ degree: sql`degree + ${delta}` })
    .where('account_id', '=', accountId)
    .where('id', 'in', entityIds)
    .execute();
}

/**
 * Relations with both ends' names and types, newest first. `query` matches
 * either end's name or the type, case-insensitively; `entityId` keeps the
 * relations touching that entity.
 */
export async function listRelations(
  db: Db,
  accountId: string,
  filter: {
    query?: string | undefined;
    types?: string[] | undefined;
    entityId?: string | undefined;
    limit: number;
    offset: number;
  },
): Promise<{ rows: RelationWithEndsRow[]; total: number }> {
  let query = db
    .selectFrom('relations as r')
    .innerJoin('entities as f', (join) =>
      join.onRef('f.account_id', '=', 'r.account_id').onRef('f.id', '=', 'r.from_id'),
    )
    .innerJoin('entities as t', (join) =>
      join.onRef('t.account_id', '=', 'r.account_id').onRef('t.id', '=', 'r.to_id'),
    )
    .where('r.account_id', '=', accountId);
  if (filter.entityId) {
    const entityId = filter.entityId;
    query = query.where((eb) =>
      eb.or([eb('r.from_id', '=', entityId), eb('r.to_id', '=', entityId)]),
    );
  }
  if (filter.types?.length) query = query.where('r.type', 'in', filter.types);
  if (filter.query) {
    const contains = `%${escapeLike(filter.query.toLowerCase())}%`;
    query = query.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['f.name']), 'like', contains),
        eb(eb.fn('lower', ['t.name']), 'like', contains),
        eb(eb.fn('lower', ['r.type']), 'like', contains),
      ]),
    );
  }
  const rows = await query
    .select([
      'r.id',
      'r.from_id',
      'r.to_id',
      'r.type',
      'r.created_at',
      'f.name as from_name',
      'f.type as from_type',
      't.name as to_name',
      't.type as to_type',
      sql<number>`(count(*) over ())::int`.as('total'),
    ])
    .orderBy('r.ordinal', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && filter.offset > 0) {
    const counted = await query
      .select(sql<number>`count(*)::int`.as('total'))
      .executeTakeFirstOrThrow();
    total = counted.total;
  }
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}

export async function listRelationTypeCounts(
  db: Db,
  accountId: string,
): Promise<{ type: string; count: number }[]> {
  return db
    .selectFrom('relations')
    .select(['type', sql<number>`count(*)::int`.as('count')])
    .where('account_id', '=', accountId)
    .groupBy('type')
    .orderBy('count', 'desc')
    .orderBy('type')
    .execute();
}

// ── graph reads ─────────────────────────────────────────────────────────────

/** Entities next to any of `frontier`, in either direction, not already in `seen`. */
export async function neighbours(
  db: Db,
  accountId: string,
  frontier: string[],
  seen: string[],
  limit: number,
): Promise<string[]> {
  const result = await sql<{ id: string }>`
    select n.id from (
      select to_id as id from relations where account_id = ${accountId} and from_id = any(${frontier}::uuid[])
      union
      select from_id from relations where account_id = ${accountId} and to_id = any(${frontier}::uuid[])
    ) n
    where n.id <> all(${seen}::uuid[])
    limit ${limit}
  `.execute(db);
  return result.rows.map((row) => row.id);
}

/** The best-connected entities (highest degree first), skipping `exclude`. */
export async function bestConnected(
  db: Db,
  accountId: string,
  exclude: string[],
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('entities')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql<boolean>`id <> all(${exclude}::uuid[])`)
    .orderBy('degree', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function nodesByIds(db: Db, accountId: string, ids: string[]): Promise<NodeRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('entities')
    .select(['id', 'name', 'type', 'observations_count'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

/** Relations whose two ends are both among `ids`. */
export async function relationsAmong(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<RelationRow[]> {
  if (ids.length === 0) return [];
  const result = await sql<RelationRow>`
    select id, from_id, to_id, type, created_at from relations
     where account_id = ${accountId}
       and from_id = any(${ids}::uuid[]) and to_id = any(${ids}::uuid[])
     order by ordinal
  `.execute(db);
  return result.rows;
}

// ── change log ──────────────────────────────────────────────────────────────

/**
 * Locks the account's row for the rest of the transaction. Every graph write
 * takes it first, so an account's writes queue in one order and never
 * deadlock on each other's rows (names, type counts, degrees). Returns the
 * bytes stored before the write, for the storage limit.
 */
export async function lockAccount(db: Db, accountId: string): Promise<{ storedBytes: number }> {
  const result = await sql<{ bytes: number }>`
    select stored_bytes::float8 as bytes from accounts where id = ${accountId} for update
  `.execute(db);
  return { storedBytes: result.rows[0]?.bytes ?? 0 };
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

/** The first of these entities holding more than `max` observations, if any. */
export async function entityOverObservations(
  db: Db,
  accountId: string,
  ids: string[],
  max: number,
): Promise<{ name: string; observations_count: number } | undefined> {
  if (ids.length === 0) return undefined;
  return db
    .selectFrom('entities')
    .select(['name', 'observations_count'])
    .where('account_id', '=', accountId)
    .where('id', '=', sql<string>`any(${ids}::uuid[])`)
    .where('observations_count', '>', max)
    .limit(1)
    .executeTakeFirst();
}

/**
 * Appends a change-log event in the caller's transaction. The account's row is
 * locked (lockAccount), so an account's events commit in sequence order and a
 * reader resuming from a seq never misses one.
 */
export async function appendEvent(
  db: Db,
  accountId: string,
  event: {
    type: string;
    payload: Record<string, unknown>;
    actor: Record<string, unknown>;
    at: Date;
  },
): Promise<number> {
  const row = await db
    .updateTable('accounts')
    .set({ event_seq: sql`event_seq + 1` })
    .where('id', '=', accountId)
    .returning(sql<string>`event_seq::text`.as('seq'))
    .executeTakeFirstOrThrow();
  await db
    .insertInto('graph_events')
    .values({
      account_id: accountId,
      seq: row.seq,
      type: event.type,
      payload: JSON.stringify(event.payload),
      actor: JSON.stringify(event.actor),
      at: event.at,
    })
    .execute();
  return Number(row.seq);
}

// ── by-name operations (the MCP memory contract) ────────────────────────────

export interface NamedRelationRow {
  id: string;
  from_id: string;
  to_id: string;
  from_name: string;
  to_name: string;
  type: string;
}

/** Inserts many entities in one statement; names that exist already are skipped. */
export async function insertEntities(
  db: Db,
  accountId: string,
  entities: { name: string; type: string; metadata: Record<string, unknown> }[],
): Promise<EntityRow[]> {
  if (entities.length === 0) return [];
  return db
    .insertInto('entities')
    .values(
      entities.map((entity) => ({
        account_id: accountId,
        name: entity.name,
        type: entity.type,
        metadata: JSON.stringify(entity.metadata),
      })),
    )
    .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
    .returning(entityColumns)
    .execute();
}

/**
 * Inserts observations of freshly created entities in one statement, numbered
 * from 0 per entity, and sets each entity's count.
 */
export async function insertFirstObservations(
  db: Db,
  accountId: string,
  items: { entityId: string; contents: string[] }[],
): Promise<void> {
  const rows = items.flatMap(({ entityId, contents }) =>
    contents.map((content, position) => ({
      account_id: accountId,
      entity_id: entityId,
      content,
      metadata: null,
      position,
    })),
  );
  if (rows.length === 0) return;
  // Postgres takes at most 65,535 parameters per statement; 5 per row.
  for (let start = 0; start < rows.length; start += 10_000) {
    await db
      .insertInto('observations')
      .values(rows.slice(start, start + 10_000))
      .execute();
  }
  await sql`
    update entities e set observations_count = n.count
      from (select unnest(${items.map((item) => item.entityId)}::uuid[]) as id,
                   unnest(${items.map((item) => item.contents.length)}::int[]) as count) n
     where e.account_id = ${accountId} and e.id = n.id
  `.execute(db);
}

/**
 * Relations with both ends' names where either end is among `ids` (or, with
 * `fromOnly`, the start), oldest first; at most `limit` (null: all, for export).
 */
export async function relationsTouching(
  db: Db,
  accountId: string,
  ids: string[],
  options: { fromOnly?: boolean; limit: number | null },
): Promise<NamedRelationRow[]> {
  if (ids.length === 0) return [];
  const touches = options.fromOnly
    ? sql`r.from_id = any(${ids}::uuid[])`
    : sql`(r.from_id = any(${ids}::uuid[]) or r.to_id = any(${ids}::uuid[]))`;
  const result = await sql<NamedRelationRow>`
    select r.id, r.from_id, r.to_id, f.name as from_name, t.name as to_name, r.type
      from relations r
      join entities f on f.account_id = r.account_id and f.id = r.from_id
      join entities t on t.account_id = r.account_id and t.id = r.to_id
     where r.account_id = ${accountId} and ${touches}
     order by r.ordinal
     limit ${options.limit}
  `.execute(db);
  return result.rows;
}

/** Entities in creation order, for reading the whole graph page by page. */
export async function pageEntities(
  db: Db,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<EntityRow[]> {
  return db
    .selectFrom('entities')
    .select(entityColumns)
    .where('account_id', '=', accountId)
    .orderBy('ordinal')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function findObservationIdsByContent(
  db: Db,
  accountId: string,
  entityId: string,
  contents: string[],
): Promise<string[]> {
  if (contents.length === 0) return [];
  const rows = await db
    .selectFrom('observations')
    .select('id')
    .where('account_id', '=', accountId)
    .where('entity_id', '=', entityId)
    .where('content', 'in', contents)
    .execute();
  return rows.map((row) => row.id);
}

export async function findEntitiesByIds(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<EntityRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('entities')
    .select(entityColumns)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

// ── lossless import ─────────────────────────────────────────────────────────

/** Inserts entities with their own ids and dates; rows whose id or name exist are skipped. */
export async function importEntities(
  db: Db,
  accountId: string,
  rows: {
    id: string;
    name: string;
    type: string;
    metadata: Record<string, unknown>;
    createdAt: string;
    updatedAt: string;
  }[],
): Promise<EntityRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('entities')
    .values(
      rows.map((row) => ({
        account_id: accountId,
        id: row.id,
        name: row.name,
        type: row.type,
        metadata: JSON.stringify(row.metadata),
        created_at: new Date(row.createdAt),
        updated_at: new Date(row.updatedAt),
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .returning(entityColumns)
    .execute();
}

export async function importObservations(
  db: Db,
  accountId: string,
  rows: {
    id: string;
    entityId: string;
    content: string;
    metadata?: Record<string, unknown> | undefined;
    position: number;
    createdAt: string;
  }[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += 5_000) {
    await db
      .insertInto('observations')
      .values(
        rows.slice(start, start + 5_000).map((row) => ({
          account_id: accountId,
          id: row.id,
          entity_id: row.entityId,
          content: row.content,
          metadata: row.metadata ? JSON.stringify(row.metadata) : null,
          position: row.position,
          created_at: new Date(row.createdAt),
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function importRelations(
  db: Db,
  accountId: string,
  rows: { id: string; fromId: string; toId: string; type: string; createdAt: string }[],
): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < rows.length; start += 5_000) {
    const result = await db
      .insertInto('relations')
      .values(
        rows.slice(start, start + 5_000).map((row) => ({
          account_id: accountId,
          id: row.id,
          from_id: row.fromId,
          to_id: row.toId,
          type: row.type,
          created_at: new Date(row.createdAt),
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    inserted += result.length;
  }
  return inserted;
}

/** Recounts every kept-up-to-date column of the account after a bulk import. */
export async function recountAccount(db: Db, accountId: string): Promise<void> {
  await sql`
    update entities e set
      observations_count = (select count(*) from observations o
                             where o.account_id = e.account_id and o.entity_id = e.id),
      degree = (select count(*) from relations r
                 where r.account_id = e.account_id and (r.from_id = e.id or r.to_id = e.id))
     where e.account_id = ${accountId}
  `.execute(db);
  await db.deleteFrom('entity_type_counts').where('account_id', '=', accountId).execute();
  await sql`
    insert into entity_type_counts (account_id, type, count)
    select account_id, type, count(*)::int from entities where account_id = ${accountId}
     group by account_id, type
  `.execute(db);
}

export async function existingEntityIds(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await sql<{ id: string }>`
    select id from entities where account_id = ${accountId} and id = any(${ids}::uuid[])
  `.execute(db);
  return new Set(result.rows.map((row) => row.id));
}

export async function findRelationsByIds(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<RelationRow[]> {
  if (ids.length === 0) return [];
  const result = await sql<RelationRow>`
    select id, from_id, to_id, type, created_at from relations
     where account_id = ${accountId} and id = any(${ids}::uuid[])
     order by ordinal
  `.execute(db);
  return result.rows;
}

export interface EventRow {
  seq: string;
  type: string;
  payload: Record<string, unknown>;
  at: Date;
}

/** The account's change-log events after `seq`, oldest first. */
export async function eventsSince(
  db: Db,
  accountId: string,
  seq: number,
  limit: number,
): Promise<EventRow[]> {
  return (
    db
      .selectFrom('graph_events')
      .select([sql<string>`seq::text`.as('seq'), 'type', 'payload', 'at'])
      .where('account_id', '=', accountId)
      .where('graph_events.seq', '>', seq)
      // The numeric column, not the text alias: '1000' sorts before '999'.
      .orderBy('graph_events.seq')
      .limit(limit)
      .execute()
  );
}

export async function latestSeq(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select(sql<string>`event_seq::text`.as('seq'))
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
