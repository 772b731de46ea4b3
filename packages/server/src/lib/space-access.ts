import {
  coversAllSpaces,
  roleAtLeast,
  spaceAccess,
  spacePermission,
  type Access,
  type Role,
} from '@engram/shared';
import type { AuthContext } from './auth-context.js';
import { forbidden } from './errors.js';

/** The permission the credential lacks to `access` the space `slug`, or undefined when it may. */
export function lackedPermission(
  auth: Pick<AuthContext, 'permissions'>,
  slug: string,
  access: Access,
): string | undefined {
  const granted = spaceAccess(auth.permissions ?? [], slug);
  if (granted === 'write' || granted === access) return undefined;
  return spacePermission(slug, access);
}

/** Whether the credential has full access: the account's settings, not only its spaces. */
export const hasFullAccess = (auth: Pick<AuthContext, 'permissions'>) =>
  (auth.permissions ?? []).length === 0;

/** The sentence a refused credential is told, naming what it lacks. */
export function lacksMessage(auth: Pick<AuthContext, 'credential'>, lacking: string): string {
  return auth.credential.kind === 'oauth'
    ? `This connection was not granted ${lacking}: reconnect the app and allow it`
    : `This API key lacks ${lacking}`;
}

export const VIEWER_READ_ONLY =
  'Your role in this account is Viewer: you can read its memory, not change it';

/** What the person's role refuses (a viewer reads only), before what the credential was given. */
export function roleRefusal(auth: Pick<AuthContext, 'role'>, access: Access): string | undefined {
  return access === 'write' && auth.role === 'viewer' ? VIEWER_READ_ONLY : undefined;
}

/** Refuses (403) a read or write of a space the person's role or the credential does not allow. */
export function requireSpaceAccess(
  auth: Pick<AuthContext, 'permissions' | 'credential' | 'role'>,
  slug: string,
  access: Access,
): void {
  const refused = roleRefusal(auth, access);
  if (refused) throw forbidden(refused);
  const lacking = lackedPermission(auth, slug, access);
  if (lacking) throw forbidden(lacksMessage(auth, lacking));
}

/**
 * Refuses (403) what the person's role may not do: `needed` or a role above
 * it (owner > admin > member > viewer).
 */
export function requireRole(auth: Pick<AuthContext, 'role'>, needed: Role, what: string): void {
  if (!roleAtLeast(auth.role, needed)) {
    throw forbidden(`Only ${ROLE_GROUPS[needed]} can ${what}`);
  }
}

const ROLE_GROUPS: Record<Role, string> = {
  owner: 'owners',
  admin: 'owners and admins',
  member: 'members, admins and owners',
  viewer: 'members of the account',
};

/** Refuses (403) a scoped credential on what belongs to the whole account (keys, billing, usage, spaces). */
export function requireFullAccess(auth: Pick<AuthContext, 'permissions' | 'credential'>): void {
  if (!hasFullAccess(auth)) throw forbidden(lacksMessage(auth, 'full access to the account'));
}

/** Refuses (403) listing or creating spaces unless the credential reaches every space. */
export function requireAllSpaces(
  auth: Pick<AuthContext, 'permissions' | 'credential' | 'role'>,
  access: Access,
): void {
  const refused = roleRefusal(auth, access);
  if (refused) throw forbidden(refused);
  if (!coversAllSpaces(auth.permissions ?? [], access)) {
    throw forbidden(lacksMessage(auth, `spaces:*:${access}`));
  }
}
