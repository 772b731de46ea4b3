import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/**
 * The duplicate finder's own bookkeeping (migrations 031, 034): per account,
 * its scan and the entity it compares alone; and a scan's pages of entity
 * ids. Its lease and position in the change log are the follower's
 * (follower/leases.repository.ts), the log itself history's reader.
 */

// ---------------------------------------------------------------- the finder's state

export interface StateRow {
  account_id: string;
  applied_seq: number;
  scan_seq: number | null;
  scan_space: string | null;
  scan_cursor: string | null;
  /** The entities the holder before noted it was comparing one at a time (`noteWorking`), if any. */
  working_space: string | null;
  working_ids: string[] | null;
}

/** The account's state (after its claim). */
export async function stateOf(db: Db, accountId: string): Promise<StateRow | undefined> {
  const result = await sql<StateRow>`
    select account_id, applied_seq::float8 as applied_seq, scan_seq::float8 as scan_seq,
           scan_space, scan_cursor, working_space, working_ids
      from duplicate_state where account_id = ${accountId}
  `.execute(db);
  return result.rows[0];
}

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
