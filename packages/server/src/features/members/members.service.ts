import {
  ACCOUNT_NOT_FOUND,
  INVITATION_TTL_DAYS,
  UNLIMITED,
  type AcceptedInvitation,
  type AccountMembership,
  type CreateInvitationInput,
  type CreatedInvitation,
  type InvitationPreview,
  type Member,
  type MembersResponse,
  type Role,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext, CredentialContext, RevocableRef } from '../../lib/auth-context.js';
import type { CredentialCache } from '../../lib/credential-cache.js';
import { conflict, forbidden, notFound, notFoundBecause, planLimit } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { membershipRef, membershipRefs, parseMembershipRef } from '../../lib/membership-ref.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import type { Entitlements } from '../entitlements/index.js';
import { bindService, type CredentialChange } from '../feature.js';
import type { KeysService } from '../keys/index.js';
import type { OAuthService } from '../oauth/index.js';
import type { InvitationMailer } from './invitation-mail.js';
import type { MemberActivity } from './member-activity.js';
import * as repo from './members.repository.js';

const INVITATION_PREFIX = 'eng_inv_';
const DAY_MS = 86_400_000;

export const LAST_OWNER_MESSAGE =
  "The account's last owner cannot leave or be demoted: transfer ownership first";
export const INVITATION_INVALID_MESSAGE =
  'This invitation is no longer valid (used, revoked or expired): ask for a new one';

export interface MembersDeps {
  db: Db;
  now: () => Date;
  /** Memberships read recently, like credentials (forgotten on every change, on every node). */
  verified: CredentialCache;
  /** Tells every node a membership changed: it is forgotten, and what it opened ends. */
  credentialsChanged: (changes: CredentialChange[]) => void;
  entitlements: Entitlements;
  /** A removed member's keys in the account end with their membership. */
  keys: Pick<KeysService, 'deleteKeysMadeBy'>;
  /** …and so do the apps they connected to it. */
  oauth: Pick<OAuthService, 'revokeUserGrants'>;
  activity: MemberActivity;
  /** Mails invitations when the server has SMTP settings and PUBLIC_URL. */
  mailer: InvitationMailer | undefined;
  /** Where invitation links point: from the settings, never a request (`invitationOrigin`). */
  linkOrigin: string;
  onError: (error: unknown, message: string) => void;
}

// ——— Which account a request acts in, and as what ———

/** The person's role in the account (cached like a credential), or undefined when not a member. */
export async function roleIn(
  deps: MembersDeps,
  accountId: string,
  userId: string,
): Promise<Role | undefined> {
  const row = await deps.verified.lookup(
    'membership',
    `${accountId}:${userId}`,
    () => repo.findRole(deps.db, accountId, userId).then((role) => (role ? { role } : undefined)),
    (found) => membershipRef(accountId, userId, found.role).id,
  );
  return row?.role;
}

/**
 * Who a credential acts as in the account a request names (`requested`,
 * from X-Engram-Account or `?account=`), or in its own account when it names
 * none. A person's session reaches every account they belong to; an API key
 * or an OAuth grant only the account it was made in, with its maker's role
 * there (so a key never does more than the person who made it may now).
 * Undefined when the credential's person no longer belongs to its account.
 */
export async function actIn(
  deps: MembersDeps,
  base: CredentialContext,
  requested: string | undefined,
): Promise<AuthContext | undefined> {
  if (requested !== undefined && requested !== base.accountId) {
    if (base.credential.kind === 'api_key') {
      throw forbidden('An API key acts only in the account it was made in');
    }
    if (base.credential.kind === 'oauth') {
      throw forbidden('A connected app acts only in the account it was allowed into');
    }
  }
  const accountId = requested ?? base.accountId;
  const role = isUuid(accountId) ? await roleIn(deps, accountId, base.userId) : undefined;
  if (!role && requested !== undefined) throw notFoundBecause(ACCOUNT_NOT_FOUND);
  if (!role) {
    // A session's own account is where the person signed in; they may have
    // left it since. Another account of theirs serves; none, they sign in again.
    if (base.credential.kind !== 'session') return undefined;
    const [other] = await repo.accountsOf(deps.db, base.userId);
    if (!other) return undefined;
    return actIn(deps, base, other.id);
  }
  deps.activity.record(accountId, base.userId, deps.now());
  return { ...base, accountId, role };
}

/** The accounts the person belongs to, with their role in each (`GET /auth/me`). */
export async function accountsOf(deps: MembersDeps, userId: string): Promise<AccountMembership[]> {
  return repo.accountsOf(deps.db, userId);
}

/** Whether a watched membership still holds with the role it was opened with (realtime/credential-watch.ts). */
export async function membershipStatus(
  deps: MembersDeps,
  ref: RevocableRef,
): Promise<{ expiresAt: null } | undefined> {
  const parsed = parseMembershipRef(ref.id);
  if (!parsed || !isUuid(parsed.accountId) || !isUuid(parsed.userId)) return undefined;
  const role = await repo.findRole(deps.db, parsed.accountId, parsed.userId);
  return role === parsed.role ? { expiresAt: null } : undefined;
}

/** Tells every node the membership changed: its cached role is forgotten and what it opened ends. */
function membershipChanged(deps: MembersDeps, accountId: string, userIds: string[]): void {
  deps.credentialsChanged(userIds.flatMap((userId) => membershipRefs(accountId, userId)));
}

// ——— Members ———

const MANAGERS: readonly Role[] = ['owner', 'admin'];

function requireManager(auth: AuthContext): void {
  if (!MANAGERS.includes(auth.role)) {
    throw forbidden('Only owners and admins can manage members');
  }
}

function toMember(row: repo.MemberRow): Member {
  return {
    userId: row.user_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    joinedAt: row.joined_at.toISOString(),
    lastActiveAt: row.last_active_at?.toISOString() ?? null,
  };
}

/** `GET /api/members`: everyone sees the members; owners and admins also the pending invitations. */
export async function listMembers(deps: MembersDeps, auth: AuthContext): Promise<MembersResponse> {
  await deps.activity.flush();
  const now = deps.now();
  const [members, invitations, plan] = await Promise.all([
    repo.listMembers(deps.db, auth.accountId),
    MANAGERS.includes(auth.role) ? repo.listInvitations(deps.db, auth.accountId, now) : [],
    deps.entitlements.planOf(auth.accountId, now),
  ]);
  return {
    members: members.map(toMember),
    invitations: invitations.map((row) => ({
      id: row.id,
      email: row.email,
      role: row.role,
      expiresAt: row.expires_at.toISOString(),
    })),
    maxMembers: plan.features.maxMembers,
  };
}

async function requireMember(trx: Db, accountId: string, userId: string): Promise<repo.MemberRow> {
  const row = isUuid(userId) ? await repo.findMember(trx, accountId, userId) : undefined;
  if (!row) throw notFound('Member');
  return row;
}

/** Refuses taking the account's last owner away. */
async function keepAnOwner(trx: Db, accountId: string, target: repo.MemberRow): Promise<void> {
  if (target.role === 'owner' && (await repo.countOwners(trx, accountId)) <= 1) {
    throw conflict(LAST_OWNER_MESSAGE);
  }
}

/**
 * `PATCH /api/members/{userId}`: owners change anyone's role; admins change
 * the roles of admins, members and viewers, and never make an owner.
 */
export async function updateRole(
  deps: MembersDeps,
  auth: AuthContext,
  userId: string,
  role: Role,
): Promise<Member> {
  requireManager(auth);
  const { member, changed } = await deps.db.transaction().execute(async (trx) => {
    await repo.lockMembers(trx, auth.accountId);
    const target = await requireMember(trx, auth.accountId, userId);
    if (auth.role !== 'owner' && (target.role === 'owner' || role === 'owner')) {
      throw forbidden('Only an owner can change an owner’s role or make someone an owner');
    }
    if (target.role === role) return { member: target, changed: false };
    if (role !== 'owner') await keepAnOwner(trx, auth.accountId, target);
    await repo.setRole(trx, auth.accountId, userId, role);
    return { member: { ...target, role }, changed: true };
  });
  if (changed) membershipChanged(deps, auth.accountId, [userId]);
  return toMember(member);
}

/**
 * `DELETE /api/members/{userId}`: owners and admins remove others (admins
 * not owners); anyone may remove themselves (leave), but the last owner.
 * Their access ends at once: their requests in the account, the keys they
 * made there, the apps they connected to it and everything those opened.
 */
export async function removeMember(
  deps: MembersDeps,
  auth: AuthContext,
  userId: string,
): Promise<void> {
  const leaving = userId === auth.userId;
  if (!leaving) requireManager(auth);
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockMembers(trx, auth.accountId);
    const target = await requireMember(trx, auth.accountId, userId);
    if (!leaving && auth.role !== 'owner' && target.role === 'owner') {
      throw forbidden('Only an owner can remove an owner');
    }
    await keepAnOwner(trx, auth.accountId, target);
    await repo.deleteMember(trx, auth.accountId, userId);
  });
  membershipChanged(deps, auth.accountId, [userId]);
  await deps.keys.deleteKeysMadeBy(auth.accountId, userId);
  await deps.oauth.revokeUserGrants(userId, auth.accountId);
}

/** `POST /api/members/transfer-ownership`: the owner makes another member owner and becomes an admin. */
export async function transferOwnership(
  deps: MembersDeps,
  auth: AuthContext,
  userId: string,
): Promise<void> {
  if (auth.role !== 'owner') throw forbidden('Only an owner can transfer ownership');
  if (userId === auth.userId) {
    throw conflict('You already own this account: choose another member', 'userId');
  }
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockMembers(trx, auth.accountId);
    await requireMember(trx, auth.accountId, userId);
    await repo.setRole(trx, auth.accountId, userId, 'owner');
    await repo.setRole(trx, auth.accountId, auth.userId, 'admin');
  });
  membershipChanged(deps, auth.accountId, [userId, auth.userId]);
}

// ——— Invitations ———

/**
 * `POST /api/members/invitations`: a link with a single-use token for the
 * email, within the plan's member limit (people and pending invitations
 * together). Inviting an email again replaces its earlier link. The link is
 * mailed when the server has SMTP settings and PUBLIC_URL; it is always
 * returned, once.
 */
export async function invite(
  deps: MembersDeps,
  auth: AuthContext,
  input: Required<CreateInvitationInput>,
): Promise<CreatedInvitation> {
  requireManager(auth);
  const now = deps.now();
  const token = newSecret(INVITATION_PREFIX);
  const row = await deps.db.transaction().execute(async (trx) => {
    await repo.lockMembers(trx, auth.accountId);
    await repo.deleteExpiredInvitations(trx, auth.accountId, now);
    if (await repo.emailIsMember(trx, auth.accountId, input.email)) {
      throw conflict(`${input.email} is already a member of this account`, 'email');
    }
    const pending = await repo.listInvitations(trx, auth.accountId, now);
    const replacing = pending.some((invitation) => invitation.email === input.email);
    const plan = await deps.entitlements.planOf(auth.accountId, now, trx);
    const max = plan.features.maxMembers;
    const seats = await repo.countSeats(trx, auth.accountId, now);
    if (max !== UNLIMITED && !replacing && seats >= max) {
      throw planLimit(
        `Member limit reached: the ${plan.name} plan allows ${max} ${max === 1 ? 'person' : 'people'} (members and pending invitations). Revoke an invitation, remove a member or upgrade your plan.`,
      );
    }
    return repo.upsertInvitation(trx, {
      accountId: auth.accountId,
      email: input.email,
      role: input.role,
      tokenHash: hashSecret(token),
      invitedBy: auth.userId,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
      now,
    });
  });
  // The token travels in the fragment: browsers never send it to a server or in a Referer.
  const url = `${deps.linkOrigin}/invitations/accept#token=${token}`;
  const emailed = await mailInvitation(deps, auth, token, url);
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    expiresAt: row.expires_at.toISOString(),
    url,
    emailed,
  };
}

/** Mails the link when a mail server is set; a refusal is logged, and the link is still shown to copy. */
async function mailInvitation(
  deps: MembersDeps,
  auth: AuthContext,
  token: string,
  url: string,
): Promise<boolean> {
  if (!deps.mailer) return false;
  // Read back with the account's name and the inviter's, as the invitee will see them.
  const invitation = await repo.findInvitationByToken(deps.db, hashSecret(token));
  if (!invitation) return false;
  try {
    await deps.mailer({
      to: invitation.email,
      accountName: invitation.account_name,
      inviterName: invitation.inviter_name || 'A colleague',
      role: invitation.role,
      url,
      expiresAt: invitation.expires_at,
    });
    return true;
  } catch (error) {
    deps.onError(error, `could not mail the invitation of account ${auth.accountId}`);
    return false;
  }
}

/** `DELETE /api/members/invitations/{id}`: the link stops working at once. */
export async function revokeInvitation(
  deps: MembersDeps,
  auth: AuthContext,
  id: string,
): Promise<void> {
  requireManager(auth);
  if (!isUuid(id) || !(await repo.deleteInvitation(deps.db, auth.accountId, id))) {
    throw notFound('Invitation');
  }
}

/** The pending invitation a token opens, or the 404 every unknown, used, revoked or expired one gets alike. */
async function openInvitation(db: Db, token: string, now: Date): Promise<repo.InvitationDetails> {
  const row = token.startsWith(INVITATION_PREFIX)
    ? await repo.findInvitationByToken(db, hashSecret(token))
    : undefined;
  if (!row || row.expires_at.getTime() <= now.getTime()) {
    throw notFoundBecause(INVITATION_INVALID_MESSAGE);
  }
  return row;
}

/** `POST /api/invitations/preview`: what a link offers, before the person signs in. */
export async function previewInvitation(
  deps: MembersDeps,
  token: string,
): Promise<InvitationPreview> {
  const row = await openInvitation(deps.db, token, deps.now());
  return {
    accountName: row.account_name,
    email: row.email,
    role: row.role,
    invitedBy: row.inviter_name || 'A member',
    expiresAt: row.expires_at.toISOString(),
  };
}

/**
 * `POST /api/invitations/accept`, with the invitee's session: the signed-in
 * person joins with the invitation's role and the token is spent. The
 * invitation names an email; only the person signed in with it may accept.
 */
export async function acceptInvitation(
  deps: MembersDeps,
  auth: AuthContext,
  token: string,
): Promise<AcceptedInvitation> {
  const now = deps.now();
  const found = await openInvitation(deps.db, token, now);
  if (found.email !== (await repo.emailOf(deps.db, auth.userId))) {
    throw forbidden(`This invitation is for ${found.email}: sign in with that email to accept it`);
  }
  const role = await deps.db.transaction().execute(async (trx) => {
    await repo.lockMembers(trx, found.account_id);
    // Read again under the lock: two accepts of one link, one wins.
    const invitation = await openInvitation(trx, token, now);
    await repo.deleteInvitation(trx, invitation.account_id, invitation.id);
    const existing = await repo.findRole(trx, invitation.account_id, auth.userId);
    if (existing) return existing;
    const plan = await deps.entitlements.planOf(invitation.account_id, now, trx);
    const max = plan.features.maxMembers;
    const members = (await repo.listMembers(trx, invitation.account_id)).length;
    if (max !== UNLIMITED && members >= max) {
      throw planLimit(
        `This account is full: its ${plan.name} plan allows ${max} ${max === 1 ? 'person' : 'people'}. Ask its owner to upgrade and invite you again.`,
      );
    }
    await repo.insertMember(trx, invitation.account_id, auth.userId, invitation.role);
    return invitation.role;
  });
  membershipChanged(deps, found.account_id, [auth.userId]);
  return { accountId: found.account_id, role };
}

export const createMembersService = (deps: MembersDeps) => ({
  /** Members' last activity, counted in memory (flushed by `listMembers`, periodically and at stop). */
  activity: deps.activity,
  ...bindService(deps, {
    roleIn,
    actIn,
    accountsOf,
    membershipStatus,
    listMembers,
    updateRole,
    removeMember,
    transferOwnership,
    invite,
    revokeInvitation,
    previewInvitation,
    acceptInvitation,
  }),
});

export type MembersService = ReturnType<typeof createMembersService>;
