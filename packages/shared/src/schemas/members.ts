import { z } from 'zod';
import { emailField, user } from './auth.js';

/**
 * Teams (docs/product.md, Members): an account has members, each with one
 * role. A person may belong to several accounts; each request acts in one,
 * named by this header (or, on the WebSocket, `?account=`); without it, the
 * person's own account.
 */
export const ACCOUNT_HEADER = 'X-Engram-Account';
export const ACCOUNT_QUERY = 'account';
/** The 404 of a request naming an account the person does not belong to (or no longer). */
export const ACCOUNT_NOT_FOUND = 'Account not found';

/**
 * Roles, most powerful first: `owner` (billing, members, deleting the
 * account), `admin` (members other than owners, every key, webhooks, spaces,
 * the graph), `member` (the graph and their own keys), `viewer` (read only).
 */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const role = z.enum(ROLES);
export type Role = z.infer<typeof role>;

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  viewer: 'Viewer',
};

/** Whether `held` is at least `needed` (owner > admin > member > viewer). */
export function roleAtLeast(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) <= ROLES.indexOf(needed);
}

/** Days an invitation link works. */
export const INVITATION_TTL_DAYS = 7;

/** One account a person belongs to (`GET /auth/me` → `accounts`). */
export const accountMembership = z.object({
  id: z.string(),
  name: z.string(),
  role,
});
export type AccountMembership = z.infer<typeof accountMembership>;

export const member = z.object({
  userId: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role,
  joinedAt: z.string(),
  /** The member's latest request in this account (to the minute); null before their first. */
  lastActiveAt: z.string().nullable(),
});
export type Member = z.infer<typeof member>;

export const invitation = z.object({
  id: z.string(),
  email: z.string(),
  role,
  expiresAt: z.string(),
});
export type Invitation = z.infer<typeof invitation>;

/** `GET /api/members`. */
export const membersResponse = z.object({
  members: z.array(member),
  invitations: z.array(invitation),
  /** The plan's member limit (people and pending invitations together); -1: unlimited. */
  maxMembers: z.number().int(),
});
export type MembersResponse = z.infer<typeof membersResponse>;

/** `PATCH /api/members/{userId}`. */
export const updateMemberInput = z.object({ role });
export type UpdateMemberInput = z.infer<typeof updateMemberInput>;

/** `POST /api/members/invitations`: anyone but an owner (ownership is transferred, not invited). */
export const createInvitationInput = z.object({
  email: emailField,
  role: z.enum(['admin', 'member', 'viewer'], {
    error: 'Role must be admin, member or viewer',
  }),
});
export type CreateInvitationInput = z.input<typeof createInvitationInput>;

/** The invitation just made: `url` holds its single-use token, shown to the inviter to copy. */
export const createdInvitation = invitation.extend({
  url: z.string(),
  /** Whether the link was also emailed (only when the server has SMTP settings). */
  emailed: z.boolean(),
});
export type CreatedInvitation = z.infer<typeof createdInvitation>;

/** The secret part of an invitation link (`/invitations/accept#token=…`). */
export const invitationToken = z
  .string({ error: 'Token is required' })
  .min(1, 'Token is required')
  .max(200, 'Token is too long');

/** `POST /api/invitations/accept`, with the invitee's session. */
export const acceptInvitationInput = z.object({ token: invitationToken });
export const acceptedInvitation = z.object({ accountId: z.string(), role });
export type AcceptedInvitation = z.infer<typeof acceptedInvitation>;

/** `POST /api/invitations/preview`: what a link offers, shown before accepting (no session needed). */
export const invitationPreviewInput = acceptInvitationInput;
export const invitationPreview = z.object({
  accountName: z.string(),
  email: z.string(),
  role,
  invitedBy: z.string(),
  expiresAt: z.string(),
});
export type InvitationPreview = z.infer<typeof invitationPreview>;

/** `POST /api/members/transfer-ownership`: the owner hands the account to another member and becomes an admin. */
export const transferOwnershipInput = z.object({
  userId: z.string({ error: 'userId is required' }).min(1, 'userId is required').max(64),
});
export type TransferOwnershipInput = z.infer<typeof transferOwnershipInput>;

/** `GET /auth/me`: the person, the accounts they belong to, and the one this request acts in. */
export const me = user.extend({
  accounts: z.array(accountMembership),
  currentAccountId: z.string(),
});
export type Me = z.infer<typeof me>;
