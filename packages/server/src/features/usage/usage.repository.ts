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

/** Operations admitted for an account and month that a flush moves into usage_daily. */
export interface Settled {
  accountId: string;
  /** First day of the month the operations were admitted in (YYYY-MM-01). */
  month: string;
  count: number;
}

/** One stored row of usage_daily. */
export interface StoredRow {
  day: string;
  operation_type: UsageRow['operationType'];
  resource_type: string;
  count: number;
  total_ms: number;
}

/**
 * Admits `count` operations at once when the account's operations for the
 * month (written plus admitted) stay within `max` with them: one conditional
 * increment on the month's row, which concurrent callers on any node queue
 * on, so the allowance is never overshot. All or none: returns false when
 * fewer than `count` are left.
 */
export async function admit(
  db: Db,
  accountId: string,
  month: string,
  max: number,
  count = 1,
): Promise<boolean> {
  if (count > max) return false;
  const result = await sql<{ admitted: number }>`
    insert into usage_monthly as m (account_id, month, count, reserved)
    values (${accountId}, ${month}::date, 0, ${count})
    on conflict (account_id, month) do update set reserved = m.reserved + ${count}
      where m.count + m.reserved + ${count} <= ${max}
    returning 1 as admitted
  `.execute(db);
  return result.rows.length > 0;
}

/** Gives back admitted operations that did not happen (the request failed). */
export async function release(db: Db, settled: Settled[]): Promise<void> {
  if (settled.length === 0) return;
  await sql`
    update usage_monthly m set reserved = greatest(m.reserved - d.count, 0)
      from json_to_recordset(${JSON.stringify(settled)}::json)
        as d("accountId" uuid, month date, count bigint)
     where m.account_id = d."accountId" and m.month = d.month
  `.execute(db);
}

/**
 * Writes counted operations to usage_daily and, in the same transaction,
 * takes them off what was admitted (triggers add them to the month's count),
 * so the month's total never jumps for a concurrent admission.
 */
export async function addUsage(db: Db, rows: UsageRow[], settled: Settled[] = []): Promise<void> {
  if (rows.length === 0 && settled.length === 0) return;
  // One order for every node, so two flushes lock the same rows in the same order.
  const sorted = [...rows].sort((a, b) =>
    `${a.accountId}|${a.day}|${a.operationType}|${a.resourceType}`.localeCompare(
      `${b.accountId}|${b.day}|${b.operationType}|${b.resourceType}`,
    ),
  );
  await db.transaction().execute(async (trx) => {
    // Counts of an account deleted since are dropped: written, they would
    // fail the foreign key and, kept for the next flush, fail it forever.
    const ids = [...new Set(sorted.map((row) => row.accountId))];
    const live =
      ids.length === 0
        ? new Set<string>()
        : new Set(
            (await trx.selectFrom('accounts').select('id').where('id', 'in', ids).execute()).map(
              (row) => row.id,
            ),
          );
    const kept = sorted.filter((row) => live.has(row.accountId));
    if (kept.length > 0) {
      await trx
        .insertInto('usage_daily')
        .values(
          kept.map((row) => ({
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
    await release(trx, settled);
  });
}

/** The account's operations for the month: written plus admitted (what the limit counts). */
export async function monthTotal(db: Db, accountId: string, month: string): Promise<number> {
  const row = await db
    .selectFrom('usage_monthly')
    .select(sql<number>`(count + reserved)::float8`.as('total'))
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .executeTakeFirst();
  return row?.total ?? 0;
}

/** The account's daily usage rows from `since` (YYYY-MM-DD) on: one short range of the primary key. */
export async function rowsSince(db: Db, accountId: string, since: string): Promise<StoredRow[]> {
  return db
    .selectFrom('usage_daily')
    .select([
      sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'),
      'operation_type',
      'resource_type',
      'count',
      'total_ms',
    ])
    .where('account_id', '=', accountId)
    .where('day', '>=', since)
    .execute();
}
