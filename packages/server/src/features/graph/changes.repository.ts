import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { sendAhead, thenCommit } from '../../db/pipeline.js';
import { planOnce } from '../../db/prepared.js';

/** The account lock and the change log (graph_events) every write appends to. */

/** What a write learns from locking its account (lockAccount). */
export interface AccountLock {
  /** The bytes stored before the write, and the part of them history holds (the storage limit). */
  storedBytes: number;
  historyBytes: number;
  /** Whether the write's space still stands. */
  spaceLive: boolean;
  /** The call's first seq, which its history rows carry. */
  callSeq: number;
}

/**
 * Locks the account's row for the rest of the transaction. Every graph write
 * takes it first, so an account's writes queue in one order and never
 * deadlock on each other's rows (names, type counts, degrees); deleting a
 * space takes it too, so no write commits into a space marked deleted.
 * Names the call's first seq for the history triggers (`engram.call_seq`,
 * migration 026) for the rest of the transaction. Sent ahead (db/pipeline.ts):
 * the write's first statement follows it without waiting, and runs the moment
 * the lock is granted. Its answer is undefined when the account is gone or
 * being deleted.
 */
export async function lockAccount(
  db: Db,
  accountId: string,
  spaceId: string,
): Promise<{ answer: Promise<AccountLock | undefined> }> {
  const sent = await sendAhead(
    db,
    sql<{ bytes: number; history: number; live: boolean; call: string }>`
      ${planOnce} select stored_bytes::float8 as bytes, history_bytes::float8 as history,
             exists (select 1 from spaces s
                      where s.id = ${spaceId} and s.account_id = ${accountId} and s.deleted_at is null) as live,
             set_config('engram.call_seq', (event_seq + 1)::text, true) as call
        from accounts
       where id = ${accountId} and deleted_at is null for update
    `,
  );
  return {
    answer: sent.rows.then(([row]) =>
      row
        ? {
            storedBytes: row.bytes,
            historyBytes: row.history,
            spaceLive: row.live,
            callSeq: Number(row.call),
          }
        : undefined,
    ),
  };
}

/**
 * Forgets the history rows a call wrote when it made no change the log
 * records (a write that changed nothing visible): the seq they carry is the
 * next call's.
 */
export async function dropCallHistory(db: Db, spaceId: string, callSeq: number): Promise<void> {
  await sql`delete from graph_history where space_id = ${spaceId} and seq = ${callSeq}`.execute(db);
}

/** What an event counts for in `stored_bytes`, beyond its text: the row's own overhead. */
const EVENT_OVERHEAD_BYTES = 64;

/**
 * What a write's plan allows (null: no limit), and what the write did that
 * they are checked against: the limits are enforced by the append, its last
 * statement (decision 031).
 */
export interface PlanLimits {
  maxEntities: number | null;
  maxStorageBytes: number | null;
  maxObservationsPerEntity: number | null;
  /** Whether the write created an entity: only such a write can pass the entity limit. */
  created: boolean;
  /** The graph's and log's bytes before the write (history's part left out). */
  bytesBefore: number;
  /** The most observations any entity the write added to now holds (0: none added). */
  largestObservations: number;
}

/** The SQLSTATE of a write refused for its plan's limits; the message names the limit. */
export const OVER_PLAN = 'EP001';

/** Which limit refused a write (the message of an OVER_PLAN error). */
export type OverPlan = 'entities' | 'storage' | 'observations';

/**
 * Appends a write's change-log events and commits the write, in one
 * statement with its COMMIT (db/pipeline.ts): reserves one range of seqs on
 * the account's row (locked by lockAccount, so an account's events commit in
 * sequence order and a reader resuming from a seq never misses one), inserts
 * every event and adds their bytes to the account's `stored_bytes`, and
 * records the call (`graph_calls`: its seqs, space, actor and time; a revert
 * marks the call it undid). The actor is the credential's kind and id, the
 * person behind it (`userId`; absent in rows written before it was recorded)
 * and the client that made the call (`origin`, when named).
 *
 * Then it checks the plan's limits against the counters the write's
 * statements kept, and refuses (OVER_PLAN, migration 029: the transaction
 * rolls back) a write that leaves the account over its entities, over its
 * storage while growing it (its own log entry does not count: a person at
 * the limit can always delete, and the log is compacted in time; nor does
 * the history of what it removed), or an entity over its observations.
 * Returns the first seq.
 */
export async function appendEventsAndCommit(
  db: Db,
  accountId: string,
  spaceId: string,
  events: { type: string; payload: Record<string, unknown> }[],
  common: { actor: Record<string, unknown>; at: Date; reverts?: number | undefined },
  limits: PlanLimits,
): Promise<number> {
  const batch = JSON.stringify(events);
  const actor = JSON.stringify(common.actor);
  const reverts = common.reverts ?? null;
  const result = await sql<{ first: string }>`
    ${planOnce} ${thenCommit} with batch as (
      select e.type, e.payload, e.ord,
             ${EVENT_OVERHEAD_BYTES} + octet_length(e.type) + octet_length(e.payload::text)
               + octet_length(${actor}::jsonb::text) as bytes
        from rows from (json_to_recordset(${batch}::json) as (type text, payload jsonb))
               with ordinality as e(type, payload, ord)
    ),
    total as (select sum(bytes)::bigint as bytes from batch),
    reserved as (
      update accounts set event_seq = event_seq + ${events.length},
                          stored_bytes = stored_bytes + (select bytes from total)
       where id = ${accountId}
      returning event_seq - ${events.length} as base, stored_bytes::float8 as bytes,
                history_bytes::float8 as history, entity_count::float8 as entities
    ),
    appended as (
      insert into graph_events (account_id, space_id, seq, type, payload, actor, at, bytes)
      select ${accountId}, ${spaceId}::uuid, r.base + b.ord, b.type, b.payload, ${actor}::jsonb, ${common.at}::timestamptz, b.bytes
        from reserved r, batch b
    ),
    called as (
      insert into graph_calls (account_id, seq, last_seq, space_id, actor, at, reverts)
      select ${accountId}, r.base + 1, r.base + ${events.length}, ${spaceId}::uuid, ${actor}::jsonb,
             ${common.at}::timestamptz, ${reverts}::bigint
        from reserved r
    ),
    undone as (
      update graph_calls c set reverted_by = r.base + 1
        from reserved r
       where c.account_id = ${accountId} and c.seq = ${reverts}::bigint
    )
    select (base + 1)::text as first,
           case
             when ${limits.created}::boolean and entities > ${limits.maxEntities}::float8
               then refuse_over_plan('entities')
             when bytes > ${limits.maxStorageBytes}::float8
                  and bytes - history - (select bytes from total) > ${limits.bytesBefore}::float8
               then refuse_over_plan('storage')
             when ${limits.largestObservations}::float8 > ${limits.maxObservationsPerEntity}::float8
               then refuse_over_plan('observations')
           end as refused
      from reserved
  `.execute(db);
  return Number(result.rows[0]!.first);
}

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
