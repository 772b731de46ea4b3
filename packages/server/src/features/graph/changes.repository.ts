import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { planOnce } from '../../db/prepared.js';

/** The account lock and the change log (graph_events) every write appends to. */

/**
 * Locks the account's row for the rest of the transaction. Every graph write
 * takes it first, so an account's writes queue in one order and never
 * deadlock on each other's rows (names, type counts, degrees). Returns the
 * bytes stored before the write, for the storage limit.
 */
export async function lockAccount(db: Db, accountId: string): Promise<{ storedBytes: number }> {
  const result = await sql<{ bytes: number }>`
    ${planOnce} select stored_bytes::float8 as bytes from accounts where id = ${accountId} for update
  `.execute(db);
  return { storedBytes: result.rows[0]?.bytes ?? 0 };
}

/**
 * Appends a write's change-log events in one statement: reserves one range of
 * seqs on the account's row (locked by lockAccount, so an account's events
 * commit in sequence order and a reader resuming from a seq never misses one)
 * and inserts every event. Returns the first seq, and the bytes and entities
 * the account holds after the write (the counters the statements before kept):
 * what the plan limits are checked against.
 */
export async function appendEvents(
  db: Db,
  accountId: string,
  events: { type: string; payload: Record<string, unknown> }[],
  common: { actor: Record<string, unknown>; at: Date },
): Promise<{ firstSeq: number; storedBytes: number; entities: number }> {
  const batch = JSON.stringify(events);
  const result = await sql<{ first: string; bytes: number; entities: number }>`
    ${planOnce} with reserved as (
      update accounts set event_seq = event_seq + ${events.length}
       where id = ${accountId}
      returning event_seq - ${events.length} as base, stored_bytes::float8 as bytes,
                entity_count::float8 as entities
    ),
    appended as (
      insert into graph_events (account_id, seq, type, payload, actor, at)
      select ${accountId}, r.base + e.ord, e.type, e.payload, ${JSON.stringify(common.actor)}::jsonb, ${common.at}::timestamptz
        from reserved r,
             rows from (json_to_recordset(${batch}::json) as (type text, payload jsonb))
               with ordinality as e(type, payload, ord)
    )
    select (base + 1)::text as first, bytes, entities from reserved
  `.execute(db);
  const row = result.rows[0]!;
  return { firstSeq: Number(row.first), storedBytes: row.bytes, entities: row.entities };
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
