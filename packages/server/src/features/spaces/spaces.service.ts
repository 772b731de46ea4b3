import {
  coversAllSpaces,
  DEFAULT_SPACE_SLUG,
  parsePermission,
  slugify,
  SLUG_RULE,
  spaceSlug,
  UNLIMITED,
  type CreateSpaceInput,
  type Space,
  type SpaceList,
} from '@engram/shared';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/connection.js';
import type { AuthContext, SpaceAuth } from '../../lib/auth-context.js';
import { decodeCursor, pageOf } from '../../lib/cursor.js';
import {
  AppError,
  badRequest,
  conflict,
  forbidden,
  notFound,
  planLimit,
} from '../../lib/errors.js';
import { requireAllSpaces, requireRole, requireSpaceAccess } from '../../lib/space-access.js';
import type { Entitlements } from '../entitlements/index.js';
import { bindService } from '../feature.js';
import * as repo from './spaces.repository.js';

export interface SpacesDeps {
  db: Db;
  entitlements: Pick<Entitlements, 'planOf'>;
  /** Starts the background purge of a deleted space's rows. */
  purge: { kick(): void };
  /**
   * What other features do when a space goes, in the deleting transaction:
   * end the credentials that name it by slug, which a new space may take once
   * this one is purged (decision 039). Each returns what to announce after
   * the commit. The keys' is given at creation; later features add theirs
   * with `whenSpaceDeleted`.
   */
  spaceDeleted: SpaceDeletedHandler[];
}

/** Ends, inside `trx`, what names the deleted space `slug`; returns the announcement to make after the commit. */
export type SpaceDeletedHandler = (trx: Db, accountId: string, slug: string) => Promise<() => void>;

/** Adds a handler run in every space deletion's transaction (features created after this one). */
export function whenSpaceDeleted(deps: SpacesDeps, handler: SpaceDeletedHandler): void {
  deps.spaceDeleted.push(handler);
}

const toSpace = (row: repo.SpaceRow): Space => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  counts: { entities: row.entities, relations: row.relations, observations: row.observations },
});

const cursorShape = z.object({ slug: z.string() });

/** The slugs a scoped credential names, or undefined when it reaches every space. */
function grantedSlugs(auth: Pick<AuthContext, 'permissions'>): string[] | undefined {
  const permissions = auth.permissions ?? [];
  if (coversAllSpaces(permissions, 'read')) return undefined;
  return permissions.flatMap((value) => {
    const parsed = parsePermission(value);
    return parsed && parsed.space !== '*' ? [parsed.space] : [];
  });
}

/** The account's spaces a credential may see, a page at a time in slug order. */
export async function listSpaces(
  deps: SpacesDeps,
  auth: AuthContext,
  query: { limit: number; cursor?: string | undefined; query?: string | undefined },
): Promise<SpaceList> {
  const after = query.cursor ? decodeCursor(query.cursor, cursorShape).slug : undefined;
  const rows = await repo.listSpaces(deps.db, auth.accountId, {
    limit: query.limit + 1,
    after,
    prefix: query.query || undefined,
    only: grantedSlugs(auth),
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (last) => ({ slug: last.slug }));
  return { spaces: page.map(toSpace), nextCursor };
}

/** One space by id or slug, if the credential may read it (404 when the account has none). */
export async function getSpace(
  deps: SpacesDeps,
  auth: AuthContext,
  idOrSlug: string,
): Promise<Space> {
  const row = await repo.findSpace(deps.db, auth.accountId, idOrSlug);
  if (!row) throw notFound('Space');
  requireSpaceAccess(auth, row.slug, 'read');
  return toSpace(row);
}

/** A free slug for `stem` in the account: the stem, or the stem with -2, -3… */
async function freeSlug(db: Db, accountId: string, stem: string): Promise<string> {
  const taken = await repo.slugsLike(db, accountId, stem, 1000);
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n += 1) {
    const candidate = `${stem}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Creates a space under the account lock, so the plan's count of spaces is
 * never overshot by concurrent creations. An explicit slug that is taken is a
 * 409; a slug derived from the name takes the next free suffix.
 */
export async function createSpace(
  deps: SpacesDeps,
  auth: AuthContext,
  input: CreateSpaceInput,
): Promise<Space> {
  requireAllSpaces(auth, 'write');
  return deps.db.transaction().execute(async (trx) => {
    if (!(await repo.lockAccountRow(trx, auth.accountId))) throw notFound('Account');
    const plan = await deps.entitlements.planOf(auth.accountId, undefined, trx);
    const limit = plan.features.maxSpaces;
    if (limit !== UNLIMITED && (await repo.countSpaces(trx, auth.accountId)) >= limit) {
      throw planLimit(
        `Your ${plan.name} plan allows ${limit.toLocaleString('en-US')} memory spaces; delete one or upgrade your plan`,
      );
    }
    const name = input.name.trim();
    if (input.slug) {
      const row = await repo.insertSpace(trx, auth.accountId, input.slug, name);
      if (!row) throw conflict('A space with this slug already exists', 'slug');
      return toSpace(row);
    }
    const stem = slugify(input.name);
    const row =
      (await repo.insertSpace(
        trx,
        auth.accountId,
        await freeSlug(trx, auth.accountId, stem),
        name,
      )) ??
      // Past the slugs freeSlug reads, a derived one can still be taken: a random suffix is not.
      (await repo.insertSpace(
        trx,
        auth.accountId,
        `${stem.slice(0, 55)}-${randomBytes(4).toString('hex')}`,
        name,
      ));
    if (!row) throw conflict('A space with this slug already exists', 'slug');
    return toSpace(row);
  });
}

/** Renames a space: its name changes, its slug never does. */
export async function renameSpace(
  deps: SpacesDeps,
  auth: AuthContext,
  idOrSlug: string,
  name: string,
): Promise<Space> {
  const found = await repo.findSpace(deps.db, auth.accountId, idOrSlug);
  if (!found) throw notFound('Space');
  requireSpaceAccess(auth, found.slug, 'write');
  const row = await repo.renameSpace(deps.db, auth.accountId, found.id, name.trim());
  if (!row) throw notFound('Space');
  return toSpace(row);
}

/**
 * Deletes a space with everything in it: an owner's or admin's session only. It is
 * gone at once (marked under the account lock, so no write commits into it
 * after), every key with a grant on it is deleted, and its rows are purged
 * in the background. `default` stays.
 */
export async function deleteSpace(
  deps: SpacesDeps,
  auth: AuthContext,
  idOrSlug: string,
): Promise<void> {
  if (auth.credential.kind !== 'session') {
    throw forbidden('Deleting a space needs an owner or admin signed in: use the web app');
  }
  requireRole(auth, 'admin', 'delete a space');
  const found = await repo.findSpace(deps.db, auth.accountId, idOrSlug);
  if (!found) throw notFound('Space');
  if (found.slug === DEFAULT_SPACE_SLUG) {
    throw badRequest('space', 'The default space cannot be deleted');
  }
  const announce = await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.lockAccountRow(trx, auth.accountId))) return undefined;
    if (!(await repo.markSpaceDeleted(trx, auth.accountId, found.id))) return undefined;
    // Keys and OAuth grants name a space by its slug, which a new space may
    // take once this one is purged: they go with it, in this transaction (decision 039).
    const announcements: (() => void)[] = [];
    for (const handler of deps.spaceDeleted) {
      announcements.push(await handler(trx, auth.accountId, found.slug));
    }
    return () => announcements.forEach((announce) => announce());
  });
  if (!announce) throw notFound('Space');
  announce();
  deps.purge.kick();
}

/**
 * The space a request acts in, from the slug it named (none: `default`,
 * whose id is the account's, with no lookup). Refuses (403) a credential not
 * given `access` to it; an unknown slug is 404 "Space not found", or, when
 * the caller asked for it (`create`), a new space named after its slug.
 */
export async function resolveSpace(
  deps: SpacesDeps,
  auth: AuthContext,
  slug: string | undefined,
  access: 'read' | 'write',
  options: { create?: boolean } = {},
): Promise<SpaceAuth> {
  const wanted = slug ?? DEFAULT_SPACE_SLUG;
  requireSpaceAccess(auth, wanted, access);
  if (wanted === DEFAULT_SPACE_SLUG) {
    return { ...auth, space: { id: auth.accountId, slug: DEFAULT_SPACE_SLUG } };
  }
  const valid = spaceSlug.safeParse(wanted).success;
  let row = valid ? await repo.findSpace(deps.db, auth.accountId, wanted) : undefined;
  if (!row && options.create) {
    if (!valid) throw badRequest('space', SLUG_RULE);
    try {
      await createSpace(deps, auth, { name: wanted, slug: wanted });
    } catch (error) {
      // Created by a request beside this one: use it.
      if (!(error instanceof AppError && error.code === 'CONFLICT')) throw error;
    }
    row = await repo.findSpace(deps.db, auth.accountId, wanted);
  }
  if (!row) throw notFound('Space');
  return { ...auth, space: { id: row.id, slug: row.slug } };
}

/** The spaces, as every adapter calls them (the database stays inside). */
export function createSpacesService(deps: SpacesDeps) {
  return bindService(deps, {
    listSpaces,
    getSpace,
    createSpace,
    renameSpace,
    deleteSpace,
    resolveSpace,
    whenSpaceDeleted,
  });
}

export type SpacesService = ReturnType<typeof createSpacesService>;
