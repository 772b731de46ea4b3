import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { type EntityRow, entityColumns } from './entities.repository.js';

/** Lossless import: rows with their own ids and dates, and the counters recomputed after. */

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
