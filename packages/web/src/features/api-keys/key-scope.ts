import {
  normalizePermissions,
  parsePermission,
  spacePermission,
  type Access,
} from '@engram/shared';

/** Which spaces a new key reaches: all of them, or the ones picked by slug. */
export type ScopeReach = 'all' | 'chosen';

export interface ScopeChoice {
  reach: ScopeReach;
  /** The picked spaces' slugs (for 'chosen'). */
  slugs: readonly string[];
  access: Access;
}

/** A new key's first scope: today's default, the account's full access. */
export const FULL_SCOPE: ScopeChoice = { reach: 'all', slugs: [], access: 'write' };

export const NO_SPACE_CHOSEN = 'Choose at least one space';

/**
 * The `permissions` a key is created with (packages/shared spaces.ts): every
 * space read and write is the empty list, the full access keys always had.
 */
export function permissionsOf({ reach, slugs, access }: ScopeChoice): string[] {
  if (reach === 'all') return access === 'write' ? [] : ['spaces:*:read'];
  return normalizePermissions(slugs.map((slug) => spacePermission(slug, access)));
}

/** What keeps the choice from being sent, if anything. */
export function scopeProblem({ reach, slugs }: ScopeChoice): string | null {
  return reach === 'chosen' && slugs.length === 0 ? NO_SPACE_CHOSEN : null;
}

const ACCESS_WORDS: Record<Access, string> = { read: 'read only', write: 'read and write' };

/**
 * A key's permissions in plain words: 'Full access' (the empty list),
 * 'All spaces · read only', 'alpha, beta · read and write', or several of
 * these joined by '; ' ('All spaces · read only; alpha · read and write').
 */
export function scopeLabel(permissions: readonly string[]): string {
  if (permissions.length === 0) return 'Full access';
  const parts: string[] = [];
  const bySpace: Record<Access, string[]> = { write: [], read: [] };
  for (const value of normalizePermissions(permissions)) {
    const parsed = parsePermission(value);
    if (!parsed) continue;
    if (parsed.space === '*') parts.push(`All spaces · ${ACCESS_WORDS[parsed.access]}`);
    else bySpace[parsed.access].push(parsed.space);
  }
  for (const access of ['write', 'read'] as const) {
    if (bySpace[access].length)
      parts.push(`${bySpace[access].join(', ')} · ${ACCESS_WORDS[access]}`);
  }
  // Grants this app cannot read (a newer grammar) reach nothing it knows of.
  return parts.length ? parts.join('; ') : 'No access';
}
