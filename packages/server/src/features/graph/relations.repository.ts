import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { escapeLike } from './entities.repository.js';

/** Relations and the graph walks over them. Every query is scoped by account. */

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

export interface NamedRelationRow {
  id: string;
  from_id: string;
  to_id: string;
  from_name: string;
  to_name: string;
  type: string;
}

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
