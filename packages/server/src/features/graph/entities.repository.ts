import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** Entities: rows, type counts, the stored-bytes counter. Every query is scoped by account. */

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  observations_count: number;
  created_at: Date;
  updated_at: Date;
}

export const entityColumns = [
  'id',
  'name',
  'type',
  'metadata',
  'observations_count',
  'created_at',
  'updated_at',
] as const;

/** `a%b_c\` → `a\%b\_c\\`, so user text is matched literally inside LIKE patterns. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

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
