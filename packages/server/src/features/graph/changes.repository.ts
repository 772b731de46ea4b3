import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { sendAhead, thenCommit } from '../../db/pipeline.js';
import { planOnce } from '../../db/prepared.js';

/** The account lock, and the append to the change log (graph_events) that ends every write. */

/** What a write learns from locking its account (lockAccountForWrite). */
export interface AccountLock {
  /** Whether the write's space still stands. */
  spaceLive: boolean;
}

/**
 * Locks the account's row for the rest of the transaction. Every graph write
 * takes it first, so an account's writes queue in one order and never deadlock
 * on each other's rows (names, type counts, degrees); deleting a space takes it
 * too (spaces.repository `lockAccountRow`), so no write commits into a space
 * marked deleted. Leaves three settings for the rest of the transaction, which
 * no other transaction can change while it holds the lock: the call's first seq
 * for the history triggers (`engram.call_seq`, migration 026), the bytes the
 * account stored before the write, history's left out, for the append's storage
 * limit (`engram.bytes_before`), and whether the write's space stands
 * (`engram.space_live`), for the append's own refusal. Sent ahead
 * (db/pipeline.ts): the write's first statement follows it without waiting, and
 * runs the moment the lock is granted. Its answer is undefined when the account
 * is gone or being deleted.
 */
export async function lockAccountForWrite(
  db: Db,
  accountId: string,
  spaceId: string,
): Promise<{ answer: Promise<AccountLock | undefined> }> {
  const sent = await sendAhead(
    db,
    sql<{ space: string }>`
      ${planOnce} select
             set_config('engram.call_seq', (event_seq + 1)::text, true) as call,
             set_config('engram.bytes_before', (stored_bytes - history_bytes)::text, true) as bytes,
             set_config('engram.space_live',
                        exists (select 1 from spaces s
                                 where s.id = ${spaceId} and s.account_id = ${accountId}
                                   and s.deleted_at is null)::text, true) as space
        from accounts
       where id = ${accountId} and deleted_at is null for update
    `,
  );
  return {
    answer: sent.rows.then(([row]) => (row ? { spaceLive: row.space === 'true' } : undefined)),
  };
}

/**
 * Where a statement that stages its own events (migration 030) puts them:
 * its slot among the write's events, and for a write's last statement the
 * sender that puts the append and COMMIT right behind it (graph.writes).
 */
export interface Staging {
  slot: number;
  send?: <R>(query: RawBuilder<R>) => Promise<R[]>;
}

/** Runs a statement that stages its events, sent as `staging` says (executed when it says nothing). */
export async function runStaged<R>(
  db: Db,
  query: RawBuilder<R>,
  staging: Staging | undefined,
): Promise<R[]> {
  return staging?.send ? staging.send(query) : (await query.execute(db)).rows;
}

/** What an event counts for in `stored_bytes`, beyond its text: the row's own overhead. */
const EVENT_OVERHEAD_BYTES = 64;

/**
 * The SQLSTATE of a statement naming entities that do not exist (stage_events,
 * migration 030); the message is their keys as a JSON array.
 */
export const MISSING_ENTITIES = 'EP002';

/** What a write's plan allows (null: no limit), checked by the append (decision 031). */
export interface PlanLimits {
  maxEntities: number | null;
  maxStorageBytes: number | null;
  maxObservationsPerEntity: number | null;
  /** The most observations an entity the write grew now holds, as far as the server saw (0: none). */
  largestObservations: number;
}

/** The SQLSTATE of a write refused for its plan's limits; the message names the limit. */
export const OVER_PLAN = 'EP001';

/** Which limit refused a write (the message of an OVER_PLAN error). */
export type OverPlan = 'entities' | 'storage' | 'observations';

/** The SQLSTATE of a write whose account or space was deleted meanwhile; the message names which. */
export const GONE = 'EP003';

/**
 * One of a write's events as the server gives it to the append: an event it
 * built, or the place of the events a statement staged in the database
 * (`slot`, migration 030).
 */
export type LoggedEvent = { type: string; payload: Record<string, unknown> } | { staged: number };

/** What the append recorded. */
export interface Appended {
  /** The first seq, and how many events took the seqs after it (0: the write changed nothing). */
  first: number;
  count: number;
  /** The time the events carry: never before the account's last call (seq order is time order). */
  at: Date;
  /** Every event in seq order, when some were staged (the server knows the others already). */
  events: { type: string; payload: Record<string, unknown> }[] | null;
}

/**
 * Appends a write's change-log events and commits the write, in one
 * statement with its COMMIT (db/pipeline.ts), sent without waiting for its
 * answer (so it may travel with the write's last statement, decision 034):
 * takes the events staged by the write's statements in their places among
 * the server's, reserves one range of seqs on the account's row (locked by
 * lockAccountForWrite, so an account's events commit in sequence order and a
 * reader resuming from a seq never misses one), inserts every event and adds their
 * bytes to the account's `stored_bytes`, and records the call (`graph_calls`:
 * its seqs, space, actor and time; a revert marks the call it undid). The
 * actor is the credential's kind and id, the person behind it (`userId`;
 * absent in rows written before it was recorded) and the client that made the
 * call (`origin`, when named); the events carry the server's time, or the
 * account's last call's when that is later (`last_event_at`, migration 030).
 * A write that recorded no event drops the history rows it wrote (their seq
 * would be the next call's).
 *
 * Then it refuses (the transaction rolls back) a write its lock found no
 * account or no live space for (GONE), and checks the plan's limits against the
 * counters the write's statements kept (OVER_PLAN, migration 029): a write
 * that leaves the account over its entities, over its storage while growing
 * it (its own log entry does not count: a person at the limit can always
 * delete, and the log is compacted in time; nor does the history of what it
 * removed), or an entity over its observations.
 */
export async function sendAppend(
  db: Db,
  accountId: string,
  spaceId: string,
  events: LoggedEvent[],
  common: { actor: Record<string, unknown>; at: Date; reverts?: number | undefined },
  limits: PlanLimits,
): Promise<{ answer: Promise<Appended> }> {
  const batch = JSON.stringify(events);
  const actor = JSON.stringify(common.actor);
  const reverts = common.reverts ?? null;
  const staged = events.some((event) => 'staged' in event);
  const stagedOf = sql`nullif(current_setting('engram.staged_' || (g.item->>'staged'), true), '')::jsonb`;
  const sent = await sendAhead(
    db,
    sql<{ first: string; count: number; at: Date; events: Appended['events'] }>`
    ${planOnce} ${thenCommit} with given as (
      select g.item, g.ord from jsonb_array_elements(${batch}::jsonb) with ordinality as g(item, ord)
    ),
    expanded as (
      select g.item as event, g.ord, 0::bigint as sub from given g where g.item->>'staged' is null
      union all
      select e.event, g.ord, e.sub
        from given g
        cross join lateral jsonb_array_elements(coalesce(${stagedOf}->'events', '[]'))
             with ordinality as e(event, sub)
       where g.item->>'staged' is not null
    ),
    -- What every event of the call shares, once: no parameter is evaluated per
    -- event, so the generic plan costs what a custom one does and is kept.
    caller as (
      select ${accountId}::uuid as account, ${spaceId}::uuid as space, ${actor}::jsonb as actor,
             ${EVENT_OVERHEAD_BYTES} + octet_length(${actor}::jsonb::text) as overhead
    ),
    batch as (
      select x.event->>'type' as type, x.event->'payload' as payload,
             row_number() over (order by x.ord, x.sub) as ord,
             c.overhead + octet_length(x.event->>'type') + octet_length((x.event->'payload')::text) as bytes
        from expanded x, caller c
    ),
    total as (
      select count(*)::int as count, coalesce(sum(bytes), 0)::bigint as bytes,
             bool_or(type = 'entity_created') as created
        from batch
    ),
    largest as (
      select greatest(${limits.largestObservations}::int, max((${stagedOf}->>'largest')::int)) as count
        from given g
    ),
    reserved as (
      update accounts set event_seq = event_seq + (select count from total),
                          stored_bytes = stored_bytes + (select bytes from total),
                          last_event_at = case when (select count from total) > 0
                                               then greatest(last_event_at, ${common.at}::timestamptz)
                                               else last_event_at end
       where id = ${accountId} and deleted_at is null
      returning event_seq - (select count from total) as base, stored_bytes::float8 as bytes,
                history_bytes::float8 as history, entity_count::float8 as entities,
                last_event_at as at
    ),
    appended as (
      insert into graph_events (account_id, space_id, seq, type, payload, actor, at, bytes)
      select c.account, c.space, r.base + b.ord, b.type, b.payload, c.actor, r.at, b.bytes
        from reserved r, batch b, caller c
    ),
    called as (
      insert into graph_calls (account_id, seq, last_seq, space_id, actor, at, reverts)
      select ${accountId}, r.base + 1, r.base + t.count, ${spaceId}::uuid, ${actor}::jsonb, r.at,
             ${reverts}::bigint
        from reserved r, total t
       where t.count > 0
    )${
      reverts === null
        ? sql``
        : sql`,
    undone as (
      update graph_calls c set reverted_by = (select base + 1 from reserved)
       where c.account_id = ${accountId} and c.seq = ${reverts}::bigint
         and (select count from total) > 0
    )`
    }
    select (r.base + 1)::text as first, t.count, r.at,
           case when t.count = 0 then forget_call(${spaceId}::uuid, r.base + 1) end as forgotten,
           ${staged ? sql`(select jsonb_agg(jsonb_build_object('type', b.type, 'payload', b.payload) order by b.ord) from batch b)` : sql`null::jsonb`} as events,
           case
             when r.base is null then refuse_write('Account')
             when current_setting('engram.space_live', true) is distinct from 'true' then refuse_write('Space')
             when t.created and r.entities > ${limits.maxEntities}::float8
               then refuse_over_plan('entities')
             when r.bytes > ${limits.maxStorageBytes}::float8
                  and r.bytes - r.history - t.bytes
                      > current_setting('engram.bytes_before')::float8
               then refuse_over_plan('storage')
             when l.count > ${limits.maxObservationsPerEntity}::float8
               then refuse_over_plan('observations')
           end as refused
      from total t cross join largest l left join reserved r on true
  `,
  );
  return {
    answer: sent.rows.then(([row]) => ({
      first: Number(row!.first),
      count: row!.count,
      at: row!.at,
      events: row!.events,
    })),
  };
}
