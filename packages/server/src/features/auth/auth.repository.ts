import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { noOtherOwner } from '../../db/sole-owner.js';

export interface UserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string;
}

export interface SessionRow {
  session_id: string;
  account_id: string;
  user_id: string;
  expires_at: Date;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'password_hash'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Creates the user, their personal account (owner) and its free subscription. */
export async function insertUserWithAccount(
  db: Db,
  input: {
    email: string;
    passwordHash: string;
    firstName: string;
    lastName: string;
  },
): Promise<{ user: UserRow; accountId: string } | 'email_taken'> {
  return db.transaction().execute(async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({
        email: input.email,
        password_hash: input.passwordHash,
        first_name: input.firstName,
        last_name: input.lastName,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .returning(['id', 'email', 'first_name', 'last_name', 'password_hash'])
      .executeTakeFirst();
    if (!user) return 'email_taken' as const;
    return { user, accountId: await insertPersonalAccount(trx, user) };
  });
}

/** A new account the user owns, on the free plan; returns its id. */
export async function insertPersonalAccount(
  db: Db,
  user: Pick<UserRow, 'id' | 'first_name' | 'last_name'>,
): Promise<string> {
  const account = await db
    .insertInto('accounts')
    .values({ name: `${user.first_name} ${user.last_name}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('account_members')
    .values({ account_id: account.id, user_id: user.id, role: 'owner' })
    .execute();
  await db
    .insertInto('subscriptions')
    .values({ account_id: account.id, plan_id: 'free', status: 'active', current_period_end: null })
    .execute();
  return account.id;
}

/** An account the user alone owns that has other members (deleting the user would take it from them). */
export async function soleOwnedAccountWithOthers(
  db: Db,
  userId: string,
): Promise<{ name: string } | undefined> {
  return db
    .selectFrom('account_members as mine')
    .innerJoin('accounts as a', 'a.id', 'mine.account_id')
    .select('a.name')
    .where('mine.user_id', '=', userId)
    .where('mine.role', '=', 'owner')
    .where('a.deleted_at', 'is', null)
    .where(noOtherOwner(userId))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('account_members as other')
          .select('other.user_id')
          .whereRef('other.account_id', '=', 'mine.account_id')
          .where('other.user_id', '<>', userId),
      ),
    )
    .limit(1)
    .executeTakeFirst();
}

/** The account a user acts in: their personal account (the one they own), else the oldest. */
export async function findPrimaryAccountId(db: Db, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('account_members')
    .select('account_id')
    .where('user_id', '=', userId)
    .orderBy((eb) => eb.case().when('role', '=', 'owner').then(0).else(1).end())
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.account_id;
}

export async function insertSession(
  db: Db,
  session: {
    accountId: string;
    userId: string;
    tokenHash: string;
    expiresAt: Date;
  },
): Promise<string> {
  const row = await db
    .insertInto('sessions')
    .values({
      account_id: session.accountId,
      user_id: session.userId,
      token_hash: session.tokenHash,
      expires_at: session.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findSessionByTokenHash(
  db: Db,
  tokenHash: string,
): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .select(['id as session_id', 'account_id', 'user_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, accountId: string, sessionId: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('account_id', '=', accountId)
    .where('id', '=', sessionId)
    .execute();
}

/** Ends every session of the user except `keepSessionId` (after a password change); returns the ended ids. */
export async function deleteOtherSessions(
  db: Db,
  userId: string,
  keepSessionId: string,
): Promise<string[]> {
  const rows = await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('id', '<>', keepSessionId)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

export async function findSessionExpiry(db: Db, sessionId: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select('expires_at')
    .where('id', '=', sessionId)
    .executeTakeFirst();
  return row?.expires_at;
}

export async function updateUserProfile(
  db: Db,
  userId: string,
  profile: { firstName: string; lastName: string },
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({
      first_name: profile.firstName,
      last_name: profile.lastName,
      updated_at: new Date(),
    })
    .where('id', '=', userId)
    .returning(['id', 'email', 'first_name', 'last_name', 'password_hash'])
    .executeTakeFirst();
}

export async function updateUserPassword(
  db: Db,
  userId: string,
  passwordHash: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: new Date() })
    .where('id', '=', userId)
    .execute();
}

export type ThrottleScope = 'login' | 'password' | 'register';

/** Until when the subject is locked out, if it is. */
export async function findThrottleLock(
  db: Db,
  scope: ThrottleScope,
  subject: string,
): Promise<{ locked_until: Date | null; failures: number; window_start: Date } | undefined> {
  return db
    .selectFrom('auth_throttle')
    .select(['locked_until', 'failures', 'window_start'])
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

/**
 * Counts one failure in the subject's window (a window older than
 * `windowStart` starts over); returns the failures in the current window.
 * One statement, so concurrent failures on several nodes all count.
 */
export async function addThrottleFailure(
  db: Db,
  scope: ThrottleScope,
  subject: string,
  now: Date,
  windowStart: Date,
): Promise<number> {
  const row = await db
    .insertInto('auth_throttle')
    .values({ scope, subject, failures: 1, window_start: now, locked_until: null })
    .onConflict((oc) =>
      oc.columns(['scope', 'subject']).doUpdateSet({
        failures: sql`case when auth_throttle.window_start < ${windowStart} then 1 else auth_throttle.failures + 1 end`,
        window_start: sql`case when auth_throttle.window_start < ${windowStart} then ${now}::timestamptz else auth_throttle.window_start end`,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Locks the subject until `until` and starts its count over. */
export async function lockThrottle(
  db: Db,
  scope: ThrottleScope,
  subject: string,
  now: Date,
  until: Date,
): Promise<void> {
  await db
    .updateTable('auth_throttle')
    .set({ locked_until: until, failures: 0, window_start: now })
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .execute();
}

export async function clearThrottle(db: Db, scope: ThrottleScope, subject: string): Promise<void> {
  await db
    .deleteFrom('auth_throttle')
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .execute();
}
