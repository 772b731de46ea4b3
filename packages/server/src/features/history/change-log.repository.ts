import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { planOnce } from '../../db/prepared.js';

/** The change log's reads: replay after a seq, its bounds, holds, and compaction past retention. */

export interface EventRow {
  seq: string;
  /** The space the change was made in, and its slug ('' once the space is gone). */
  spaceId: string;
  space: string;
  type: string;
  payload: Record<string, unknown>;
  at: Date;
  /** The client that made the change, when its request named one. */
  origin: string | null;
}

/**
 * The account's change-log events after `seq`, oldest first: at most `limit`
 * of them, and no more than `maxBytes` (counted as `bytes`; the first event
 * always comes, whatever its size), so a page never holds more than that in
 * memory whatever the events hold.
 */
export async function eventsSince(
  db: Db,
  accountId: string,
  seq: number,
  limit: number,
  maxBytes: number,
): Promise<EventRow[]> {
  const result = await sql<EventRow>`
    ${planOnce} with page as (
      select seq, bytes from graph_events
       where account_id = ${accountId} and seq > ${seq}
       order by seq limit ${limit}
    ),
    kept as (
      select seq from (select seq, sum(bytes) over (order by seq) - bytes as before from page) p
       where before < ${maxBytes}
    )
    select g.seq::text as seq, g.space_id as "spaceId", coalesce(s.slug, '') as space,
           g.type, g.payload, g.at, g.actor->>'origin' as origin
      from graph_events g
      left join spaces s on s.id = g.space_id and s.deleted_at is null
     where g.account_id = ${accountId} and g.seq in (select seq from kept)
     order by g.seq
  `.execute(db);
  return result.rows;
}

/** Every event up to this seq was compacted (0 when none was). */
export async function compactedThrough(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select(sql<string>`events_compacted_seq::text`.as('seq'))
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/**
 * Accounts whose oldest kept event is older than `before`: the only ones
 * compaction can have work for. One index probe per account (its oldest
 * event), never a scan of the log.
 */
export async function accountsWithEventsBefore(db: Db, before: Date): Promise<string[]> {
  const result = await sql<{ id: string }>`
    select a.id from accounts a
      join lateral (
        select e.at from graph_events e
         where e.account_id = a.id and e.seq > a.events_compacted_seq
         order by e.seq limit 1
      ) oldest on true
     where oldest.at < ${before}::timestamptz
  `.execute(db);
  return result.rows.map((row) => row.id);
}

/**
 * Removes up to `batch` of the account's oldest events that are older than
 * `before` and not past the lowest hold, takes their bytes off
 * `stored_bytes` and moves `events_compacted_seq` up, in one statement (so
 * the counter and the marker never disagree with the log, whatever runs
 * beside it). Events are in time order as in seq order, so what goes is
 * always a prefix of the log. Returns how many went.
 */
export async function compactEvents(
  db: Db,
  accountId: string,
  before: Date,
  batch: number,
): Promise<number> {
  const result = await sql<{ removed: number }>`
    with doomed as (
      select e.seq from graph_events e
       where e.account_id = ${accountId} and e.at < ${before}::timestamptz
         and e.seq <= coalesce(
               (select min(h.seq) from change_log_holds h where h.account_id = ${accountId}),
               9223372036854775807)
       order by e.seq limit ${batch}
    ),
    removed as (
      delete from graph_events g
       where g.account_id = ${accountId} and g.seq in (select seq from doomed)
      returning g.seq, g.bytes
    ),
    marked as (
      update accounts a
         set stored_bytes = a.stored_bytes - r.bytes,
             events_compacted_seq = greatest(a.events_compacted_seq, r.last)
        from (select coalesce(sum(bytes), 0) as bytes, max(seq) as last from removed) r
       where a.id = ${accountId} and r.last is not null
    )
    select count(*)::int as removed from removed
  `.execute(db);
  return result.rows[0]?.removed ?? 0;
}

/** Holds the account's log from `seq` on for `reader` (moved, if it held already). */
export async function holdEvents(
  db: Db,
  accountId: string,
  reader: string,
  seq: number,
): Promise<void> {
  await db
    .insertInto('change_log_holds')
    .values({ account_id: accountId, reader, seq })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'reader']).doUpdateSet({ seq, updated_at: sql`now()` }),
    )
    .execute();
}

export async function releaseEvents(db: Db, accountId: string, reader: string): Promise<void> {
  await db
    .deleteFrom('change_log_holds')
    .where('account_id', '=', accountId)
    .where('reader', '=', reader)
    .execute();
}

export async function latestSeq(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select(sql<string>`event_seq::text`.as('seq'))
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
