import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** The account lock and the change log (graph_events) every write appends to. */

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
