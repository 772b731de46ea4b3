import { coversAllSpaces, spaceAccess, spacePermission, type Access } from '@engram/shared';
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

/** Refuses (403) a read or write of a space the credential was not given. */
export function requireSpaceAccess(
  auth: Pick<AuthContext, 'permissions' | 'credential'>,
  slug: string,
  access: Access,
): void {
  const lacking = lackedPermission(auth, slug, access);
  if (lacking) throw forbidden(lacksMessage(auth, lacking));
}

/** Refuses (403) a scoped credential on what belongs to the whole account (keys, billing, usage, spaces). */
export function requireFullAccess(auth: Pick<AuthContext, 'permissions' | 'credential'>): void {
  if (!hasFullAccess(auth)) throw forbidden(lacksMessage(auth, 'full access to the account'));
}

/** Refuses (403) listing or creating spaces unless the credential reaches every space. */
export function requireAllSpaces(
  auth: Pick<AuthContext, 'permissions' | 'credential'>,
  access: Access,
): void {
  if (!coversAllSpaces(auth.permissions ?? [], access)) {
    throw forbidden(lacksMessage(auth, `spaces:*:${access}`));
  }
}
