import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface UsageRow {
  accountId: string;
  day: string;
  operationType: 'query' | 'create' | 'update' | 'delete';
  resourceType: string;
  count: number;
  totalMs: number;
}

export async function addUsage(db: Db, rows: UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('usage_daily')
    .values(
      rows.map((row) => ({
        account_id: row.accountId,
        day: row.day,
        operation_type: row.operationType,
        resource_type: row.resourceType,
        count: row.count,
        total_ms: row.totalMs,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['account_id', 'day', 'operation_type', 'resource_type']).doUpdateSet({
        count: sql`usage_daily.count + excluded.count`,
        total_ms: sql`usage_daily.total_ms + excluded.total_ms`,
      }),
    )
    .execute();
}

/** Operations counted for the account from `since` (a YYYY-MM-DD day) on. */
export async function countSince(db: Db, accountId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('usage_daily')
    .select(sql<number>`coalesce(sum(count), 0)::int`.as('total'))
    .where('account_id', '=', accountId)
    .where('day', '>=', since)
    .executeTakeFirstOrThrow();
  return row.total;
}
