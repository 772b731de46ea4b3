import {
  ROLE_LABELS,
  roleAtLeast,
  UNLIMITED,
  type Member,
  type MembersResponse,
  type Role,
} from '@engram/shared';
import { ApiError } from '@/lib/api-client';
import { formatCount, formatDate } from '@/lib/format';

/**
 * What a role may do to whom on the Members screen (issue 40). The server
 * decides (403, 409 for the last owner); these rules only keep the screen
 * from offering what it would refuse:
 *
 * - owners manage everyone; admins manage everyone but owners (and never make one);
 * - members and viewers see the list read-only;
 * - nobody changes their own role or removes themselves here: they leave;
 * - the last owner cannot leave: ownership is transferred first.
 */

/** The person acting, as the screen knows them. */
export interface Actor {
  userId: string;
  role: Role;
}

/** Who sees the invite form, role selects and Remove: owners and admins. */
export function canManageMembers(role: Role | null): boolean {
  return role !== null && roleAtLeast(role, 'admin');
}

/** The roles `actor` may give `target` in the role select; empty when the row is read-only. */
export function assignableRoles(actor: Actor, target: Pick<Member, 'userId' | 'role'>): Role[] {
  if (target.userId === actor.userId) return [];
  if (actor.role === 'owner') return ['owner', 'admin', 'member', 'viewer'];
  if (actor.role === 'admin' && target.role !== 'owner') return ['admin', 'member', 'viewer'];
  return [];
}

/** Whether `actor` may remove `target` from the account (yourself: Leave instead). */
export function canRemove(actor: Actor, target: Pick<Member, 'userId' | 'role'>): boolean {
  if (target.userId === actor.userId) return false;
  if (actor.role === 'owner') return true;
  return actor.role === 'admin' && target.role !== 'owner';
}

/** Whether `actor` may hand the account to `target` (they become owner, the actor an admin). */
export function canTransferTo(actor: Actor, target: Pick<Member, 'userId' | 'role'>): boolean {
  return actor.role === 'owner' && target.userId !== actor.userId && target.role !== 'owner';
}

/** Owners among `members`. */
export function ownerCount(members: readonly Pick<Member, 'role'>[]): number {
  return members.filter((member) => member.role === 'owner').length;
}

/** Anyone may leave, but an account always keeps an owner: the last one transfers first. */
export function canLeave(actor: Actor, members: readonly Pick<Member, 'role'>[]): boolean {
  return actor.role !== 'owner' || ownerCount(members) > 1;
}

/** The roles an invitation may carry: never owner (ownership is transferred, not invited). */
export const INVITABLE_ROLES = ['admin', 'member', 'viewer'] as const satisfies readonly Role[];
export type InvitableRole = (typeof INVITABLE_ROLES)[number];

/** What each role may do, after "Admin: " (the roles legend and the invite form). */
export const ROLE_SUMMARIES: Record<Role, string> = {
  owner: 'billing, ownership and everything an admin does',
  admin: 'members (not owners), every API key, webhooks and spaces',
  member: 'the graph and their own API keys',
  viewer: 'reads the graph, changes nothing',
};

/** The role's name, e.g. 'Admin'. */
export function roleLabel(role: Role): string {
  return ROLE_LABELS[role];
}

/** Seats in use: members and pending invitations together, as the plan's limit counts them. */
export function seatsUsed(data: Pick<MembersResponse, 'members' | 'invitations'>): number {
  return data.members.length + data.invitations.length;
}

/**
 * '3 of 5 members', '3 of 5 members (1 invited)', '12 members · Unlimited'
 * (a limit of -1): pending invitations count toward the limit.
 */
export function seatsLabel(data: Pick<MembersResponse, 'members' | 'invitations' | 'maxMembers'>) {
  const used = seatsUsed(data);
  const invited = data.invitations.length;
  const suffix = invited > 0 ? ` (${formatCount(invited)} invited)` : '';
  if (data.maxMembers === UNLIMITED) {
    return `${formatCount(used)} ${used === 1 ? 'member' : 'members'} · Unlimited${suffix}`;
  }
  return `${formatCount(used)} of ${formatCount(data.maxMembers)} ${data.maxMembers === 1 ? 'member' : 'members'}${suffix}`;
}

/** Whether another invitation would pass the plan's limit (the server answers 402 then). */
export function isFull(data: Pick<MembersResponse, 'members' | 'invitations' | 'maxMembers'>) {
  return data.maxMembers !== UNLIMITED && seatsUsed(data) >= data.maxMembers;
}

/** A plan for one person (Free, Starter): nobody can be invited at all. */
export function isSingleSeat(maxMembers: number): boolean {
  return maxMembers !== UNLIMITED && maxMembers <= 1;
}

/** 'Ada Lovelace', or the email when the member has no name. */
export function displayName(member: Pick<Member, 'firstName' | 'lastName' | 'email'>): string {
  return `${member.firstName} ${member.lastName}`.trim() || member.email;
}

/** 'AL' (or the email's first letter), for the avatar. */
export function initials(member: Pick<Member, 'firstName' | 'lastName' | 'email'>): string {
  const fromName = `${member.firstName.charAt(0)}${member.lastName.charAt(0)}`;
  return (fromName || member.email.charAt(0) || '?').toUpperCase();
}

/** 'Just now', '5 min ago', '3 h ago', '2 days ago', then the date; 'Never' before a first request. */
export function lastActiveLabel(iso: string | null, now = Date.now()): string {
  if (iso === null) return 'Never';
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return iso;
  const minutes = Math.floor((now - time) / 60_000);
  if (minutes < 1) return 'Just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 7) return days === 1 ? 'Yesterday' : `${days} days ago`;
  return formatDate(iso);
}

/** The same in a sentence: 'Active 5 min ago', 'Active just now', 'Not active yet'. */
export function lastActiveSentence(iso: string | null, now = Date.now()): string {
  if (iso === null) return 'Not active yet';
  const label = lastActiveLabel(iso, now);
  return `Active ${label === 'Just now' || label === 'Yesterday' ? label.toLowerCase() : label}`;
}

/** 'Expires Jan 5, 2027', 'Expires today', or 'Expired' once past. */
export function expiryLabel(iso: string, now = Date.now()): string {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return `Expires ${iso}`;
  if (time <= now) return 'Expired';
  if (new Date(time).toDateString() === new Date(now).toDateString()) return 'Expires today';
  return `Expires ${formatDate(iso)}`;
}

/** A failed call's message when the server explained it, else the fallback. */
export { errorMessage } from '@/lib/api-client';

/** The server's message for one field of a 400 (e.g. `email`), to show under that field. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError ? error.detailFor(field) : undefined;
}
