import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** Observations of entities, in their order. Every query is scoped by account. */

export interface ObservationRow {
  id: string;
  entity_id: string;
  content: string;
  metadata: Record<string, unknown> | null;
  position: number;
  created_at: Date;
}

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
