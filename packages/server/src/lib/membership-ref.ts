import { ROLES, type Role } from '@engram/shared';
import type { RevocableRef } from './auth-context.js';

/**
 * A person's membership of an account with one role, as cached and watched
 * like a credential: what a request, socket or MCP session opened with that
 * role ends when the membership goes or its role changes (the ref of the old
 * role no longer matches).
 */
export function membershipRef(accountId: string, userId: string, role: Role): RevocableRef {
  return { kind: 'membership', id: `${accountId}:${userId}:${role}` };
}

/** Every ref the membership may be held under, one per role: announced when it changes. */
export function membershipRefs(accountId: string, userId: string): RevocableRef[] {
  return ROLES.map((role) => membershipRef(accountId, userId, role));
}

/** The parts of a membership ref's id, or undefined when it is not one. */
export function parseMembershipRef(
  id: string,
): { accountId: string; userId: string; role: Role } | undefined {
  const [accountId, userId, role, ...rest] = id.split(':');
  if (!accountId || !userId || rest.length > 0 || !ROLES.includes(role as Role)) return undefined;
  return { accountId, userId, role: role as Role };
}
