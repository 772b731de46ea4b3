import { hash, verify } from '@node-rs/argon2';
import type {
  AuthResponse,
  ChangePasswordInput,
  DeleteAccountInput,
  LoginInput,
  Me,
  RegisterInput,
  UpdateProfileInput,
  User,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext, CredentialContext } from '../../lib/auth-context.js';
import { badRequest, conflict, forbidden, unauthorized } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import type { CredentialCache } from '../../lib/credential-cache.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import type { AccountsService } from '../accounts/index.js';
import { bindService, type CredentialChange } from '../feature.js';
import type { KeysService } from '../keys/index.js';
import type { MembersService } from '../members/index.js';
import type { OAuthService } from '../oauth/index.js';
import * as repo from './auth.repository.js';
import {
  assertNotLocked,
  clearFailures,
  recordFailure,
  throttleSubject,
  type ThrottleRule,
} from './throttle.js';

export const SESSION_TOKEN_PREFIX = 'eng_sess_';
const INVALID_CREDENTIALS = 'Invalid email or password';

export interface AuthDeps {
  db: Db;
  sessionTtlDays: number;
  now: () => Date;
  /** Each person's personal key. */
  keys: Pick<KeysService, 'personalKey' | 'regeneratePersonalKey'>;
  throttles: { login: ThrottleRule; password: ThrottleRule; register: ThrottleRule };
  /** Tells every node that these credentials ended (their sockets and MCP sessions close). */
  credentialsChanged: (changes: CredentialChange[]) => void;
  /** Session rows verified recently (forgotten when a session ends). */
  verified: CredentialCache;
  /** Deleting the person and the accounts they alone own. */
  accounts: Pick<AccountsService, 'deleteUser'>;
  /** The applications the person connected over OAuth (ended with a password change or deletion). */
  oauth: Pick<OAuthService, 'revokeUserGrants'>;
  /** The accounts the person belongs to. */
  members: Pick<MembersService, 'accountsOf'>;
}

/** Hash of a throwaway password: login verifies against it when the email is unknown, so both failures take as long. */
const decoyHash = hash('decoy-password-for-timing');

function toUser(row: repo.UserRow, apiKey: string): User {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    apiKey,
  };
}

/** The user with their personal API key in the account they act in. */
async function userIn(deps: AuthDeps, row: repo.UserRow, accountId: string): Promise<User> {
  return toUser(row, await deps.keys.personalKey(accountId, row.id));
}

async function startSession(deps: AuthDeps, user: repo.UserRow, accountId: string) {
  const token = newSecret(SESSION_TOKEN_PREFIX);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlDays * 86_400_000);
  await repo.insertSession(deps.db, {
    accountId,
    userId: user.id,
    tokenHash: hashSecret(token),
    expiresAt,
  });
  return { token, user: await userIn(deps, user, accountId) };
}

/**
 * Creates the user. An email that already has an account is answered 409 (a
 * deliberate exception to "reveal nothing", docs/security.md): each such
 * answer counts against the client address, which is locked for an hour
 * after REGISTER_CONFLICTS_PER_HOUR of them, so addresses cannot be probed in bulk.
 */
export async function register(
  deps: AuthDeps,
  input: RegisterInput,
  clientAddress: string,
): Promise<AuthResponse> {
  const rule = deps.throttles.register;
  const subject = throttleSubject(clientAddress);
  await assertNotLocked(deps, rule, subject);
  const passwordHash = await hash(input.password);
  const created = await repo.insertUserWithAccount(deps.db, {
    ...input,
    passwordHash,
  });
  if (created === 'email_taken') {
    await recordFailure(deps, rule, subject);
    throw conflict('An account with this email already exists', 'email');
  }
  return startSession(deps, created.user, created.accountId);
}

/**
 * Signs in. Failures are counted per email, known or not (so a lock reveals
 * nothing): past a few each answer is held back longer, and LOGIN_MAX_FAILURES
 * lock the email for LOGIN_LOCK_MINUTES whatever address the attempts come from.
 */
export async function login(deps: AuthDeps, input: LoginInput): Promise<AuthResponse> {
  const rule = deps.throttles.login;
  const subject = throttleSubject(input.email);
  await assertNotLocked(deps, rule, subject);
  const user = await repo.findUserByEmail(deps.db, input.email);
  const valid = await verify(user?.password_hash ?? (await decoyHash), input.password);
  if (!user || !valid) {
    await recordFailure(deps, rule, subject);
    throw unauthorized(INVALID_CREDENTIALS);
  }
  await clearFailures(deps, rule, subject);
  // A person who left (or was removed from) every account they had gets a new one of their own.
  const accountId =
    (await repo.findPrimaryAccountId(deps.db, user.id)) ??
    (await repo.insertPersonalAccount(deps.db, user));
  return startSession(deps, user, accountId);
}

/** The context of a session token, or undefined when it is unknown or expired. */
export async function authenticateSession(
  deps: AuthDeps,
  token: string,
): Promise<CredentialContext | undefined> {
  if (!token.startsWith(SESSION_TOKEN_PREFIX)) return undefined;
  const session = await deps.verified.lookup(
    'session',
    hashSecret(token),
    (hash) => repo.findSessionByTokenHash(deps.db, hash),
    (row) => row.session_id,
  );
  const now = deps.now();
  if (!session || session.expires_at.getTime() <= now.getTime()) return undefined;
  return {
    accountId: session.account_id,
    userId: session.user_id,
    actor: { kind: 'user', id: session.user_id },
    credential: { kind: 'session', id: session.session_id, expiresAt: session.expires_at },
  };
}

/** The session's expiry, or undefined once it has ended (for holders of the session). */
export async function sessionStatus(
  deps: AuthDeps,
  sessionId: string,
): Promise<{ expiresAt: Date } | undefined> {
  if (!isUuid(sessionId)) return undefined;
  const expiresAt = await repo.findSessionExpiry(deps.db, sessionId);
  return expiresAt ? { expiresAt } : undefined;
}

export async function logout(deps: AuthDeps, auth: AuthContext): Promise<void> {
  await repo.deleteSession(deps.db, auth.accountId, auth.credential.id);
  deps.credentialsChanged([{ kind: 'session', id: auth.credential.id }]);
}

/** `GET /auth/me`: the person (with their personal key in the account acted in) and their accounts. */
export async function getProfile(deps: AuthDeps, auth: AuthContext): Promise<Me> {
  const user = await repo.findUserById(deps.db, auth.userId);
  if (!user) throw unauthorized();
  return {
    ...(await userIn(deps, user, auth.accountId)),
    accounts: await deps.members.accountsOf(auth.userId),
    currentAccountId: auth.accountId,
  };
}

export async function updateProfile(
  deps: AuthDeps,
  auth: AuthContext,
  input: UpdateProfileInput,
): Promise<User> {
  const user = await repo.updateUserProfile(deps.db, auth.userId, input);
  if (!user) throw unauthorized();
  return userIn(deps, user, auth.accountId);
}

/** A new personal API key; the previous one is refused at once. */
export async function regenerateApiKey(deps: AuthDeps, auth: AuthContext): Promise<string> {
  return deps.keys.regeneratePersonalKey(auth);
}

/**
 * Changes the password and ends the user's other sessions (the current one
 * stays signed in) and every application connected over OAuth.
 */
export async function changePassword(
  deps: AuthDeps,
  auth: AuthContext,
  input: ChangePasswordInput,
): Promise<void> {
  const user = await repo.findUserById(deps.db, auth.userId);
  if (!user) throw unauthorized();
  // Wrong current passwords are counted per user: a stolen session cannot guess the password.
  const rule = deps.throttles.password;
  await assertNotLocked(deps, rule, user.id);
  if (!(await verify(user.password_hash, input.currentPassword))) {
    await recordFailure(deps, rule, user.id);
    throw badRequest('currentPassword', 'Current password is incorrect');
  }
  await clearFailures(deps, rule, user.id);
  if (input.currentPassword === input.newPassword) {
    throw badRequest('newPassword', 'New password must differ from the current one');
  }
  await repo.updateUserPassword(deps.db, auth.userId, await hash(input.newPassword));
  const ended = await repo.deleteOtherSessions(deps.db, auth.userId, auth.credential.id);
  deps.credentialsChanged(ended.map((id) => ({ kind: 'session' as const, id })));
  await deps.oauth.revokeUserGrants(auth.userId);
}

/**
 * DELETE /auth/me: deletes the signed-in person and the accounts they alone
 * own, once they give their password again (a session left open on a shared
 * computer is not enough). A wrong password is 403 — not 401, which would
 * read as "signed out" — counted like a wrong current password, and changes
 * nothing. What deletion removes, and when: features/accounts.
 */
export async function deleteAccount(
  deps: AuthDeps,
  auth: AuthContext,
  input: DeleteAccountInput,
): Promise<void> {
  const user = await repo.findUserById(deps.db, auth.userId);
  if (!user) throw unauthorized();
  const rule = deps.throttles.password;
  await assertNotLocked(deps, rule, user.id);
  if (!(await verify(user.password_hash, input.password))) {
    await recordFailure(deps, rule, user.id);
    const message = 'Password is incorrect: your account was not deleted';
    throw forbidden(message, 'password');
  }
  const shared = await repo.soleOwnedAccountWithOthers(deps.db, user.id);
  if (shared) {
    throw conflict(
      `You are the only owner of ${shared.name}, which has other members: transfer its ownership (Settings → Members) before deleting yourself`,
    );
  }
  await deps.oauth.revokeUserGrants(user.id);
  await deps.accounts.deleteUser(user.id, [
    { scope: 'password', subject: user.id },
    { scope: 'login', subject: throttleSubject(user.email) },
  ]);
}

export const createAuthService = (deps: AuthDeps) =>
  bindService(deps, {
    register,
    login,
    authenticateSession,
    sessionStatus,
    logout,
    getProfile,
    updateProfile,
    regenerateApiKey,
    changePassword,
    deleteAccount,
  });

export type AuthService = ReturnType<typeof createAuthService>;
