import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/**
 * The export lease of each account (migration 017): who holds it and until
 * when, by the database's clock, which every node shares.
 */

/** Takes the account's lease for `holder` unless another holder's has not expired. */
export async function takeLease(
  db: Db,
  accountId: string,
  holder: string,
  seconds: number,
): Promise<boolean> {
  // Concurrent takers queue on the row: the second sees the first's lease, live.
  const result = await sql<{ holder: string }>`
    insert into export_leases as l (account_id, holder, expires_at)
    values (${accountId}, ${holder}, now() + make_interval(secs => ${seconds}))
    on conflict (account_id) do update
      set holder = excluded.holder, expires_at = excluded.expires_at
      where l.expires_at < now()
    returning l.holder
  `.execute(db);
  return result.rows.length > 0;
}

/** Moves the holder's lease on to `seconds` from now (nothing if it lost it). */
export async function renewLease(
  db: Db,
  accountId: string,
  holder: string,
  seconds: number,
): Promise<void> {
  await db
    .updateTable('export_leases')
    .set({ expires_at: sql<Date>`now() + make_interval(secs => ${seconds})` })
    .where('account_id', '=', accountId)
    .where('holder', '=', holder)
    .execute();
}

export async function releaseLease(db: Db, accountId: string, holder: string): Promise<void> {
  await db
    .deleteFrom('export_leases')
    .where('account_id', '=', accountId)
    .where('holder', '=', holder)
    .execute();
}
