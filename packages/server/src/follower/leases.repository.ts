import { sql } from 'kysely';
import type { Db } from '../db/connection.js';

/**
 * A follower's leases and cursors, in the state table its worker names
 * (decision 043: one repository, one table per worker). A key (an account,
 * an endpoint) is held by one node at a time for `leaseMs`, renewed as it
 * moves; a node that dies mid-run loses it when the lease lapses.
 */

/** Where a worker keeps its keys' leases and cursors: names, never values from a request. */
export interface LeaseTable {
  table: string;
  /** The key's column (`account_id`, `id`). */
  key: string;
  /** The change-log position the worker has handled through (`applied_seq`). */
  cursor: string;
  /** Set to now() on claim, advance and release: the keys touched longest ago go first. */
  touched?: string;
  /** A boolean column that must be true to claim or advance (`enabled`). */
  onlyIf?: string;
  /** Columns a release sets to null (a holder's notes). */
  clearOnRelease?: string[];
  /** A release leaves the lease's end at now() rather than null (keys served longest ago first). */
  releaseAtNow?: boolean;
}

const ms = (leaseMs: number) => sql`now() + ${leaseMs} * interval '1 millisecond'`;
const ref = (column: string) => sql.ref(column);

/** A claim: the cursor, and the holder before when it left the key without releasing it. */
export interface Claim {
  cursor: number;
  /** Another holder had it and did not release it: that process stopped mid-run, or stalled past its lease. */
  unclean: boolean;
}

/**
 * Takes `key` for `holder` unless another holder's lease runs. A row
 * another node is claiming at this moment is skipped (`skip locked`), not
 * waited for. `first`: the row a first claim creates (its other columns).
 */
export async function claim(
  db: Db,
  t: LeaseTable,
  key: string,
  holder: string,
  leaseMs: number,
  first?: Record<string, unknown>,
): Promise<Claim | undefined> {
  if (first) {
    const columns = [t.key, ...Object.keys(first)];
    const values = [key, ...Object.values(first)];
    await sql`
      insert into ${sql.table(t.table)} (${sql.join(columns.map(ref))})
      values (${sql.join(values)})
      on conflict (${ref(t.key)}) do nothing
    `.execute(db);
  }
  const result = await sql<{ cursor: number; before: string | null }>`
    with free as (
      select ${ref(t.key)} as key, lease_holder as before from ${sql.table(t.table)}
       where ${ref(t.key)} = ${key}
         and (lease_until is null or lease_until < now() or lease_holder = ${holder})
         ${t.onlyIf ? sql`and ${ref(t.onlyIf)}` : sql``}
         for update skip locked
    )
    update ${sql.table(t.table)} s
       set lease_holder = ${holder}, lease_until = ${ms(leaseMs)}
           ${t.touched ? sql`, ${ref(t.touched)} = now()` : sql``}
      from free
     where s.${ref(t.key)} = free.key
    returning s.${ref(t.cursor)}::float8 as cursor, free.before::text as before
  `.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  return { cursor: Number(row.cursor), unclean: row.before !== null && row.before !== holder };
}

/** Moves the cursor (never back) and renews the lease; false when the key is no longer ours. */
export async function advance(
  db: Db,
  t: LeaseTable,
  key: string,
  holder: string,
  seq: number,
  leaseMs: number,
): Promise<boolean> {
  const result = await sql`
    update ${sql.table(t.table)}
       set ${ref(t.cursor)} = greatest(${ref(t.cursor)}, ${seq}), lease_until = ${ms(leaseMs)}
           ${t.touched ? sql`, ${ref(t.touched)} = now()` : sql``}
     where ${ref(t.key)} = ${key} and lease_holder = ${holder}
       ${t.onlyIf ? sql`and ${ref(t.onlyIf)}` : sql``}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Extends the lease; false when the key is no longer ours (it lapsed and another took it). */
export async function renew(
  db: Db,
  t: LeaseTable,
  key: string,
  holder: string,
  leaseMs: number,
): Promise<boolean> {
  const result = await sql`
    update ${sql.table(t.table)} set lease_until = ${ms(leaseMs)}
     where ${ref(t.key)} = ${key} and lease_holder = ${holder}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Lets any node take the key at once. */
export async function release(db: Db, t: LeaseTable, key: string, holder: string): Promise<void> {
  const cleared = (t.clearOnRelease ?? []).map((column) => sql`, ${ref(column)} = null`);
  await sql`
    update ${sql.table(t.table)}
       set lease_holder = null, lease_until = ${t.releaseAtNow ? sql`now()` : sql`null`}
           ${t.touched ? sql`, ${ref(t.touched)} = now()` : sql``} ${sql.join(cleared, sql``)}
     where ${ref(t.key)} = ${key} and lease_holder = ${holder}
  `.execute(db);
}

/** Ends every lease of the table: for a node that knows it is the only one (the embedded database). */
export async function releaseAll(db: Db, t: LeaseTable): Promise<void> {
  await sql`update ${sql.table(t.table)} set lease_holder = null, lease_until = null`.execute(db);
}
