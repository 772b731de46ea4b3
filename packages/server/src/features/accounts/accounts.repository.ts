import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { noOtherOwner } from '../../db/sole-owner.js';

/** What marking a user deleted ended at once: the accounts to purge and the credentials to close. */
export interface Marked {
  accountIds: string[];
  sessionIds: string[];
  keyIds: string[];
}

/**
 * The accounts `userId` owns with no other owner: deleting the person
 * deletes these (an account with another owner stays, without them).
 */
export async function soleOwnedAccounts(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('account_members as mine')
    .select('mine.account_id')
    .where('mine.user_id', '=', userId)
    .where('mine.role', '=', 'owner')
    .where(noOtherOwner(userId))
    .execute();
  return rows.map((row) => row.account_id);
}

/**
 * Deletes the person and marks the accounts they alone own deleted, in one
 * short transaction whose size does not depend on the graph: after it no
 * session or key reaches those accounts (their people's sessions and every
 * key are gone, and graph writes refuse a marked account), and the email can
 * sign up again. The accounts' rows are purged afterwards (`purgeBatch`).
 * Marking the account row waits for a graph write in flight (it holds that
 * row), so no write commits into a marked account.
 */
export async function markUserDeleted(
  db: Db,
  userId: string,
  throttles: { scope: 'login' | 'password'; subject: string }[],
): Promise<Marked> {
  return db.transaction().execute(async (trx) => {
    // Read again under the transaction: an owner added or removed meanwhile counts.
    const accountIds = await soleOwnedAccounts(trx, userId);
    const any = accountIds.length > 0;
    if (any) {
      await trx
        .updateTable('accounts')
        .set({ deleted_at: new Date() })
        .where('id', 'in', accountIds)
        .where('deleted_at', 'is', null)
        .execute();
    }
    const sessions = await trx
      .deleteFrom('sessions')
      .where((eb) =>
        any
          ? eb.or([eb('user_id', '=', userId), eb('account_id', 'in', accountIds)])
          : eb('user_id', '=', userId),
      )
      .returning('id')
      .execute();
    // Every key of the deleted accounts, and the person's own keys (personal
    // keys included) in accounts that stay.
    const keys = await trx
      .deleteFrom('api_keys')
      .where((eb) =>
        any
          ? eb.or([eb('created_by', '=', userId), eb('account_id', 'in', accountIds)])
          : eb('created_by', '=', userId),
      )
      .returning('id')
      .execute();
    if (any)
      await trx.deleteFrom('account_members').where('account_id', 'in', accountIds).execute();
    for (const { scope, subject } of throttles) {
      await trx
        .deleteFrom('auth_throttle')
        .where('scope', '=', scope)
        .where('subject', '=', subject)
        .execute();
    }
    // Its remaining memberships go with it (on delete cascade).
    await trx.deleteFrom('users').where('id', '=', userId).execute();
    return {
      accountIds,
      sessionIds: sessions.map((row) => row.id),
      keyIds: keys.map((row) => row.id),
    };
  });
}

/** Accounts marked deleted whose rows are not all gone yet, oldest first. */
export async function accountsBeingDeleted(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('accounts')
    .select('id')
    .where('deleted_at', 'is not', null)
    .orderBy('deleted_at')
    .execute();
  return rows.map((row) => row.id);
}

/** Spaces marked deleted whose rows are not all gone yet, oldest first (migration 022). */
export async function spacesBeingDeleted(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('spaces')
    .select('id')
    .where('deleted_at', 'is not', null)
    .orderBy('deleted_at')
    .execute();
  return rows.map((row) => row.id);
}

/** Who owns a row: an account (`account_id`) or, for the graph's tables, a space (`space_id`). */
export type Owner = 'account_id' | 'space_id';

/**
 * Every table that holds rows of an owner, read from the catalog so a table
 * added later is purged without a change here: an account's tables have an
 * `account_id` column, a space's a `space_id` and no `account_id` (the
 * change log has both: it is the account's). Ordered so a table comes before
 * the tables its foreign keys point to (its rows never wait on, or cascade
 * from, a parent's delete).
 */
export async function ownedTables(db: Db, owner: Owner): Promise<string[]> {
  const tables = await sql<{ name: string }>`
    select c.table_name as name
      from information_schema.columns c
      join information_schema.tables t
        on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
       and c.column_name = ${owner} and c.table_name <> 'accounts'
       and (${owner} = 'account_id' or not exists (
             select 1 from information_schema.columns a
              where a.table_schema = c.table_schema and a.table_name = c.table_name
                and a.column_name = 'account_id'))
     order by 1
  `.execute(db);
  const edges = await sql<{ child: string; parent: string }>`
    select child.relname as child, parent.relname as parent
      from pg_constraint k
      join pg_class child on child.oid = k.conrelid
      join pg_class parent on parent.oid = k.confrelid
     where k.contype = 'f' and child.relnamespace = current_schema()::regnamespace
       and child.oid <> parent.oid
  `.execute(db);
  const names = tables.rows.map((row) => row.name);
  const children = new Map<string, string[]>(names.map((name) => [name, []]));
  for (const { child, parent } of edges.rows) {
    if (children.has(child)) children.get(parent)?.push(child);
  }
  // Depth-first: a table's children are listed before it.
  const ordered: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const child of children.get(name) ?? []) visit(child);
    ordered.push(name);
  };
  names.forEach(visit);
  return ordered;
}

/**
 * Whose rows a purge batch takes: an account's or a space's own (`account_id`
 * or `space_id` equal to the id), or, in the graph's tables, those of every
 * space of an account (`account_spaces`: one batch reads the spaces in turn by
 * their index, however many the account has).
 */
export type PurgeOf = Owner | 'account_spaces';

/**
 * Deletes at most `limit` of the owner's rows in `table`, in one statement
 * (rows picked by physical address, so any table works without knowing its
 * key). Returns how many went.
 */
export async function purgeBatch(
  db: Db,
  table: string,
  of: PurgeOf,
  ownerId: string,
  limit: number,
): Promise<number> {
  const whose =
    of === 'account_spaces'
      ? sql`space_id in (select id from spaces where account_id = ${ownerId})`
      : sql`${sql.ref(of)} = ${ownerId}`;
  const result = await sql<{ count: number }>`
    with gone as (
      delete from ${sql.table(table)}
       where ctid = any(array(
         select ctid from ${sql.table(table)} where ${whose} limit ${limit}
       ))
      returning 1
    )
    select count(*)::int as count from gone
  `.execute(db);
  return result.rows[0]?.count ?? 0;
}

/**
 * A deleted space's last step, under its row's lock: whatever is still there
 * and the space's row. False when another node finished first.
 */
export async function finishSpacePurge(
  db: Db,
  spaceId: string,
  tables: string[],
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const marked = await trx
      .selectFrom('spaces')
      .select('id')
      .where('id', '=', spaceId)
      .where('deleted_at', 'is not', null)
      .forUpdate()
      .executeTakeFirst();
    if (!marked) return false;
    for (const table of tables) {
      await sql`delete from ${sql.table(table)} where space_id = ${spaceId}`.execute(trx);
    }
    await trx.deleteFrom('spaces').where('id', '=', spaceId).execute();
    return true;
  });
}

/**
 * The last step, in one transaction under the account row's lock: whatever
 * is still there (rows written while the batches ran, normally none) and the
 * account row itself, which the rest referring to it cascades from. False
 * when another node finished first.
 */
export async function finishPurge(db: Db, accountId: string, tables: string[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const marked = await trx
      .selectFrom('accounts')
      .select('id')
      .where('id', '=', accountId)
      .where('deleted_at', 'is not', null)
      .forUpdate()
      .executeTakeFirst();
    if (!marked) return false;
    for (const table of tables) {
      await sql`delete from ${sql.table(table)} where account_id = ${accountId}`.execute(trx);
    }
    await trx.deleteFrom('accounts').where('id', '=', accountId).execute();
    return true;
  });
}
