import type { Role } from '@engram/shared';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export type InvitedRole = Exclude<Role, 'owner'>;

export interface MemberRow {
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: Role;
  joined_at: Date;
  last_active_at: Date | null;
}

export interface InvitationRow {
  id: string;
  email: string;
  role: InvitedRole;
  expires_at: Date;
}

/** The person's role in the account; one lookup by primary key. */
export async function findRole(
  db: Db,
  accountId: string,
  userId: string,
): Promise<Role | undefined> {
  const row = await db
    .selectFrom('account_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select('m.role')
    .where('m.account_id', '=', accountId)
    .where('m.user_id', '=', userId)
    .where('a.deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.role;
}

/** The accounts the person belongs to, the ones they joined first first. */
export async function accountsOf(
  db: Db,
  userId: string,
): Promise<{ id: string; name: string; role: Role }[]> {
  return db
    .selectFrom('account_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.id', 'a.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('a.deleted_at', 'is', null)
    .orderBy('m.created_at')
    .orderBy('a.id')
    .execute();
}

function selectMembers(db: Db, accountId: string) {
  return db
    .selectFrom('account_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'm.user_id',
      'u.email',
      'u.first_name',
      'u.last_name',
      'm.role',
      'm.created_at as joined_at',
      'm.last_active_at',
    ])
    .where('m.account_id', '=', accountId);
}

export async function listMembers(db: Db, accountId: string): Promise<MemberRow[]> {
  return selectMembers(db, accountId).orderBy('m.created_at').orderBy('m.user_id').execute();
}

export async function findMember(
  db: Db,
  accountId: string,
  userId: string,
): Promise<MemberRow | undefined> {
  return selectMembers(db, accountId).where('m.user_id', '=', userId).executeTakeFirst();
}

/** Invitations not yet accepted, revoked or expired. */
export async function listInvitations(
  db: Db,
  accountId: string,
  now: Date,
): Promise<InvitationRow[]> {
  return db
    .selectFrom('account_invitations')
    .select(['id', 'email', 'role', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Serialises changes to an account's members and invitations until the
 * transaction ends (a lock of its own, not the account row graph writes
 * take): limits and the last owner are judged one change at a time.
 */
export async function lockMembers(db: Db, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`members:${accountId}`}, 0))`.execute(
    db,
  );
}

/** People in the account and its pending invitations: what the plan's member limit counts. */
export async function countSeats(db: Db, accountId: string, now: Date): Promise<number> {
  const row = await sql<{ count: number }>`
    select (select count(*) from account_members where account_id = ${accountId})::int
         + (select count(*) from account_invitations
             where account_id = ${accountId} and expires_at > ${now})::int as count`.execute(db);
  return row.rows[0]?.count ?? 0;
}

export async function countOwners(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('account_members')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return row.count;
}

export async function setRole(
  db: Db,
  accountId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await db
    .updateTable('account_members')
    .set({ role })
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMember(db: Db, accountId: string, userId: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('account_members')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .returning('user_id')
    .execute();
  return rows.length > 0;
}

export async function insertMember(
  db: Db,
  accountId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await db
    .insertInto('account_members')
    .values({ account_id: accountId, user_id: userId, role })
    .execute();
}

export async function emailOf(db: Db, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('email')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row?.email;
}

/** Whether someone with this email is already a member. */
export async function emailIsMember(db: Db, accountId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('account_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.user_id')
    .where('m.account_id', '=', accountId)
    .where('u.email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes the account's expired invitations (a new one takes their place). */
export async function deleteExpiredInvitations(
  db: Db,
  accountId: string,
  now: Date,
): Promise<void> {
  await db
    .deleteFrom('account_invitations')
    .where('account_id', '=', accountId)
    .where('expires_at', '<=', now)
    .execute();
}

/** Invites the email, replacing an earlier invitation of it (its link stops working). */
export async function upsertInvitation(
  db: Db,
  invitation: {
    accountId: string;
    email: string;
    role: InvitedRole;
    tokenHash: string;
    invitedBy: string;
    expiresAt: Date;
    now: Date;
  },
): Promise<InvitationRow> {
  return db
    .insertInto('account_invitations')
    .values({
      account_id: invitation.accountId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      expires_at: invitation.expiresAt,
      created_at: invitation.now,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'email']).doUpdateSet((eb) => ({
        role: eb.ref('excluded.role'),
        token_hash: eb.ref('excluded.token_hash'),
        invited_by: eb.ref('excluded.invited_by'),
        expires_at: eb.ref('excluded.expires_at'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .returning(['id', 'email', 'role', 'expires_at'])
    .executeTakeFirstOrThrow();
}

export async function deleteInvitation(db: Db, accountId: string, id: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('account_invitations')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning('id')
    .execute();
  return rows.length > 0;
}

export interface InvitationDetails extends InvitationRow {
  account_id: string;
  account_name: string;
  inviter_name: string | null;
}

/** The invitation a link's token opens, with its account and who sent it; expired ones too. */
export async function findInvitationByToken(
  db: Db,
  tokenHash: string,
): Promise<InvitationDetails | undefined> {
  return db
    .selectFrom('account_invitations as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select([
      'i.id',
      'i.account_id',
      'i.email',
      'i.role',
      'i.expires_at',
      'a.name as account_name',
      sql<string | null>`trim(u.first_name || ' ' || u.last_name)`.as('inviter_name'),
    ])
    .where('i.token_hash', '=', tokenHash)
    .where('a.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Each member's latest request, to the minute, written in one statement. */
export async function touchMembers(
  db: Db,
  batch: { accountId: string; userId: string; at: Date }[],
): Promise<void> {
  if (batch.length === 0) return;
  await sql`
    update account_members m set last_active_at = greatest(m.last_active_at, b.at)
      from (select * from unnest(${batch.map((b) => b.accountId)}::uuid[],
                                 ${batch.map((b) => b.userId)}::uuid[],
                                 ${batch.map((b) => b.at.toISOString())}::timestamptz[])
              as t(account_id, user_id, at)) b
     where m.account_id = b.account_id and m.user_id = b.user_id`.execute(db);
}
