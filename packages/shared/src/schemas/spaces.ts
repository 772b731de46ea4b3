import { z } from 'zod';
import { text } from './common.js';

/**
 * Memory spaces: separate graphs inside one account. A request names its
 * space by slug in this header or the `space` query parameter (the header
 * wins); naming none means the `default` space.
 */
export const SPACE_HEADER = 'X-Engram-Space';
export const SPACE_QUERY = 'space';
export const DEFAULT_SPACE_SLUG = 'default';

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const SLUG_RULE =
  'Slug must be 1–64 lowercase letters, digits or dashes, not starting or ending with a dash';

export const spaceSlug = text('Slug is required').regex(SLUG_PATTERN, SLUG_RULE);

export const spaceName = text('Name is required')
  .trim()
  .min(1, 'Name is required')
  .max(100, 'Name must be at most 100 characters');

/** 'Project Alpha!' → 'project-alpha': the slug a name suggests (the server adds -2, -3… when taken). */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/g, '');
  return slug || 'space';
}

export const createSpaceInput = z.object({
  name: spaceName,
  /** Optional: chosen by the caller (e.g. an app's own user id); otherwise derived from the name. */
  slug: spaceSlug.optional(),
});
export type CreateSpaceInput = z.input<typeof createSpaceInput>;

export const updateSpaceInput = z.object({ name: spaceName });
export type UpdateSpaceInput = z.input<typeof updateSpaceInput>;

export const spaceCounts = z.object({
  entities: z.number().int(),
  relations: z.number().int(),
  observations: z.number().int(),
});

export const space = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  createdAt: z.string(),
  counts: spaceCounts,
});
export type Space = z.infer<typeof space>;

export const listSpacesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: text().max(500).optional(),
  /** Keeps spaces whose slug or name starts with it (case-insensitive). */
  query: text().trim().max(100).optional(),
});

export const spaceList = z.object({
  spaces: z.array(space),
  nextCursor: z.string().nullable(),
});
export type SpaceList = z.infer<typeof spaceList>;

/**
 * What a credential may do, as the strings a key's `permissions` list holds:
 * `spaces:*:read`, `spaces:*:write`, `space:<slug>:read`, `space:<slug>:write`
 * (write implies read). An empty list is full access: every space, and the
 * account's own settings (keys, billing, analytics, spaces).
 */
export type Access = 'read' | 'write';

const PERMISSION_PATTERN =
  /^(?:spaces:\*|space:([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)):(read|write)$/;

export const permission = text().regex(
  PERMISSION_PATTERN,
  'Permission must be spaces:*:read, spaces:*:write, space:<slug>:read or space:<slug>:write',
);

export interface ParsedPermission {
  /** The slug, or '*' for every space. */
  space: string;
  access: Access;
}

export function parsePermission(value: string): ParsedPermission | null {
  const match = PERMISSION_PATTERN.exec(value);
  if (!match) return null;
  return { space: match[1] ?? '*', access: match[2] as Access };
}

/** The permission string that grants `access` to the space `slug`. */
export const spacePermission = (slug: string, access: Access) => `space:${slug}:${access}`;

/**
 * The access a permission list gives to one space: 'write', 'read' or null
 * (none). An empty list is full access.
 */
export function spaceAccess(permissions: readonly string[], slug: string): Access | null {
  if (permissions.length === 0) return 'write';
  let granted: Access | null = null;
  for (const value of permissions) {
    const parsed = parsePermission(value);
    if (!parsed || (parsed.space !== '*' && parsed.space !== slug)) continue;
    if (parsed.access === 'write') return 'write';
    granted = 'read';
  }
  return granted;
}

/** Whether the list reaches every space (and so may list and create them): empty, or a spaces:* grant. */
export function coversAllSpaces(permissions: readonly string[], access: Access): boolean {
  if (permissions.length === 0) return true;
  return permissions.some((value) => {
    const parsed = parsePermission(value);
    return parsed?.space === '*' && (access === 'read' || parsed.access === 'write');
  });
}

/** The same grants, each once, in a stable order (what a key stores and shows). */
export function normalizePermissions(permissions: readonly string[]): string[] {
  const bySpace = new Map<string, Access>();
  for (const value of permissions) {
    const parsed = parsePermission(value);
    if (!parsed) continue;
    if (bySpace.get(parsed.space) !== 'write') bySpace.set(parsed.space, parsed.access);
  }
  const all = bySpace.get('*');
  const result: string[] = [];
  if (all) result.push(`spaces:*:${all}`);
  for (const [slug, access] of [...bySpace].sort(([a], [b]) => a.localeCompare(b))) {
    if (slug === '*' || all === 'write' || (all === 'read' && access === 'read')) continue;
    result.push(spacePermission(slug, access));
  }
  return result;
}
