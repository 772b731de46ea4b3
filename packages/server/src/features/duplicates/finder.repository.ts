import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/**
 * The duplicate finder's own bookkeeping (migration 031): per account, its
 * position in the change log, its scan and its lease; and what it reads to
 * move on: the change log (only which entities each event names, never an
 * event's texts) and a scan's pages of entity ids.
 */

// ---------------------------------------------------------------- the finder's state

export interface StateRow {
  account_id: string;
  applied_seq: number;
  scan_seq: number | null;
  scan_space: string | null;
  scan_cursor: string | null;
}

const stateColumns = sql`account_id, applied_seq::float8 as applied_seq,
  scan_seq::float8 as scan_seq, scan_space, scan_cursor`;

/**
 * Accounts with something to compare, longest untouched first: entities but
 * no state yet (a first scan), a scan under way, or change-log events past
 * the applied position. Skips deleted accounts and those another node holds.
 */
export async function accountsWithWork(
  db: Db,
  limit: number,
  only?: string,
): Promise<{ id: string; eventSeq: number; entities: number }[]> {
  const result = await sql<{ id: string; event_seq: number; entities: number }>`
    select a.id, a.event_seq::float8 as event_seq, a.entity_count::float8 as entities
      from accounts a
      left join duplicate_state s on s.account_id = a.id
     where a.deleted_at is null
       and (s.account_id is null and a.entity_count > 0
            or s.scan_seq is not null or s.applied_seq < a.event_seq)
       and (s.lease_until is null or s.lease_until < now())
       ${only ? sql`and a.id = ${only}` : sql``}
     order by s.updated_at nulls first
     limit ${limit}
  `.execute(db);
  return result.rows.map((row) => ({
    id: row.id,
    eventSeq: row.event_seq,
    entities: row.entities,
  }));
}

/** A claimed account's state, and what the holder before left there. */
export interface ClaimedState extends StateRow {
  /** Another holder had it and did not release it: that process stopped mid-run, or stalled past its lease. */
  unclean: boolean;
  /** The entities that holder noted it was comparing one at a time (`noteWorking`), if any. */
  working_space: string | null;
  working_ids: string[] | null;
}

/**
 * Takes the account for `leaseMs` unless another holder has it. A first
 * claim creates its state: a scan of every space, then the log after `eventSeq`.
 */
export async function claimAccount(
  db: Db,
  accountId: string,
  claim: { holder: string; leaseMs: number; eventSeq: number },
): Promise<ClaimedState | undefined> {
  const result = await sql<ClaimedState>`
    with before as (select lease_holder from duplicate_state where account_id = ${accountId})
    insert into duplicate_state as s (account_id, scan_seq, lease_holder, lease_until)
    values (${accountId}, ${claim.eventSeq}, ${claim.holder},
            now() + ${claim.leaseMs} * interval '1 millisecond')
    on conflict (account_id) do update
       set lease_holder = excluded.lease_holder, lease_until = excluded.lease_until, updated_at = now()
     where s.lease_until is null or s.lease_until < now() or s.lease_holder = excluded.lease_holder
    returning ${stateColumns}, s.working_space, s.working_ids,
              coalesce((select b.lease_holder <> ${claim.holder}::uuid from before b), false) as unclean
  `.execute(db);
  return result.rows[0];
}

/**
 * Notes the entities the holder compares next, one at a time after an
 * unclean claim (null: none); false when the lease is gone.
 */
export async function noteWorking(
  db: Db,
  accountId: string,
  holder: string,
  working: { space: string; ids: string[] } | null,
): Promise<boolean> {
  const result = await sql`
    update duplicate_state
       set working_space = ${working?.space ?? null}, working_ids = ${working?.ids ?? null}::uuid[]
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

export async function releaseAccount(db: Db, accountId: string, holder: string): Promise<void> {
  await sql`
    update duplicate_state
       set lease_holder = null, lease_until = null, working_space = null, working_ids = null,
           updated_at = now()
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
}

/** Moves the applied position (never back) and renews the lease; false when the lease is gone. */
export async function setApplied(
  db: Db,
  accountId: string,
  holder: string,
  seq: number,
  leaseMs: number,
): Promise<boolean> {
  const result = await sql`
    update duplicate_state
       set applied_seq = greatest(applied_seq, ${seq}), updated_at = now(),
           lease_until = now() + ${leaseMs} * interval '1 millisecond'
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Starts a scan of every space from `seq` (the log was compacted past the applied position). */
export async function restartScan(
  db: Db,
  accountId: string,
  holder: string,
  seq: number,
): Promise<void> {
  await sql`
    update duplicate_state
       set scan_seq = ${seq}, scan_space = null, scan_cursor = null, updated_at = now()
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
}

/** Where the scan goes on from, and the lease renewed; false when the lease is gone. */
export async function saveScan(
  db: Db,
  accountId: string,
  holder: string,
  position: { space: string | null; cursor: string | null; leaseMs: number },
): Promise<boolean> {
  const result = await sql`
    update duplicate_state
       set scan_space = ${position.space}, scan_cursor = ${position.cursor}, updated_at = now(),
           lease_until = now() + ${position.leaseMs} * interval '1 millisecond'
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** The scan is over: the log applies from the seq it started at. */
export async function finishScan(db: Db, accountId: string, holder: string): Promise<void> {
  await sql`
    update duplicate_state
       set applied_seq = greatest(applied_seq, scan_seq), scan_seq = null, scan_space = null,
           scan_cursor = null, updated_at = now()
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
}

/**
 * Whether the finder has compared everything the account's log holds, and
 * about how many entities it has left to compare (at most the account's).
 */
export async function progressOf(
  db: Db,
  accountId: string,
): Promise<{ upToDate: boolean; behind: number } | undefined> {
  const result = await sql<{
    event_seq: number;
    entities: number;
    applied_seq: number | null;
    scan_seq: number | null;
    stated: boolean;
  }>`
    select a.event_seq::float8 as event_seq, a.entity_count::float8 as entities,
           s.applied_seq::float8 as applied_seq, s.scan_seq::float8 as scan_seq,
           s.account_id is not null as stated
      from accounts a
      left join duplicate_state s on s.account_id = a.id
     where a.id = ${accountId}
  `.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  const following = row.stated && row.scan_seq === null;
  const upToDate = row.stated
    ? following && (row.applied_seq ?? 0) >= row.event_seq
    : row.entities === 0;
  return {
    upToDate,
    behind: upToDate
      ? 0
      : following
        ? Math.min(row.entities, row.event_seq - (row.applied_seq ?? 0))
        : row.entities,
  };
}

// ---------------------------------------------------------------- the change log

export interface ChangeRow {
  seq: number;
  space_id: string;
  type: string;
  entity_id: string | null;
  from_id: string | null;
  to_id: string | null;
  /** The entity's name after the change (entity_created, entity_updated). */
  name: string | null;
  /** Entities a change took away besides `entity_id` (a merge's sources). */
  merged: string[] | null;
}

/** The account's events after `seq`, oldest first: which entities each names. */
export async function changesAfter(
  db: Db,
  accountId: string,
  seq: number,
  limit: number,
): Promise<ChangeRow[]> {
  const result = await sql<ChangeRow>`
    select g.seq::float8 as seq, g.space_id, g.type,
           g.payload->>'entityId' as entity_id,
           g.payload->>'fromEntityId' as from_id,
           g.payload->>'toEntityId' as to_id,
           case when g.type in ('entity_created', 'entity_updated') then g.payload->>'name' end as name,
           (select array_agg(m) from json_array_elements_text(
              case when json_typeof(g.payload::json->'mergedIds') = 'array'
                   then g.payload::json->'mergedIds' else '[]'::json end) as m) as merged
      from graph_events g
     where g.account_id = ${accountId} and g.seq > ${seq}
     order by g.seq
     limit ${limit}
  `.execute(db);
  return result.rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** The account's last seq and the seq through which its log was compacted. */
export async function logBounds(
  db: Db,
  accountId: string,
): Promise<{ latest: number; compacted: number }> {
  const result = await sql<{ latest: number; compacted: number }>`
    select event_seq::float8 as latest, events_compacted_seq::float8 as compacted
      from accounts where id = ${accountId}
  `.execute(db);
  return result.rows[0] ?? { latest: 0, compacted: 0 };
}

// ---------------------------------------------------------------- a scan's pages

/** The account's next live space after `after` (by id), if any. */
export async function nextSpace(
  db: Db,
  accountId: string,
  after: string | null,
): Promise<string | undefined> {
  const result = await sql<{ id: string }>`
    select id from spaces
     where account_id = ${accountId} and deleted_at is null
       and (${after}::uuid is null or id > ${after}::uuid)
     order by id
     limit 1
  `.execute(db);
  return result.rows[0]?.id;
}

/** A page of the space's entity ids after `after`, by id. */
export async function entityIdsAfter(
  db: Db,
  spaceId: string,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const result = await sql<{ id: string }>`
    select id from entities
     where space_id = ${spaceId} and (${after}::uuid is null or id > ${after}::uuid)
     order by id
     limit ${limit}
  `.execute(db);
  return result.rows.map((row) => row.id);
}
