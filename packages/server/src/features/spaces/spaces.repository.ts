import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { isUuid } from '../../lib/ids.js';
import { escapeLike } from '../../db/like.js';

/** A space as the list and the API read it. */
export interface SpaceRow {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
  entities: number;
  relations: number;
  observations: number;
}

const columns = [
  'id',
  'slug',
  'name',
  'created_at',
  sql<number>`entity_count::float8`.as('entities'),
  sql<number>`relation_count::float8`.as('relations'),
  sql<number>`observation_count::float8`.as('observations'),
] as const;

/** The account's space by slug, or by id (what the API's paths take); deleted ones are gone. */
export async function findSpace(
  db: Db,
  accountId: string,
  idOrSlug: string,
): Promise<SpaceRow | undefined> {
  return db
    .selectFrom('spaces')
    .select(columns)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      isUuid(idOrSlug)
        ? eb.or([eb('slug', '=', idOrSlug), eb('id', '=', idOrSlug)])
        : eb('slug', '=', idOrSlug),
    )
    .executeTakeFirst();
}

/**
 * A page of the account's spaces in slug order, read down the
 * `(account_id, slug)` key from `after`; `prefix` keeps those whose slug or
 * name starts with it; `only` keeps those slugs (a scoped credential's).
 */
export async function listSpaces(
  db: Db,
  accountId: string,
  page: {
    limit: number;
    after?: string | undefined;
    prefix?: string | undefined;
    only?: string[] | undefined;
  },
): Promise<SpaceRow[]> {
  let query = db
    .selectFrom('spaces')
    .select(columns)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null);
  if (page.after !== undefined) query = query.where('slug', '>', page.after);
  if (page.only) query = query.where('slug', 'in', page.only.length > 0 ? page.only : ['']);
  if (page.prefix) {
    const pattern = `${escapeLike(page.prefix.toLowerCase())}%`;
    query = query.where((eb) =>
      eb.or([eb('slug', 'like', pattern), eb(sql`lower(name)`, 'like', pattern)]),
    );
  }
  return query.orderBy('slug').limit(page.limit).execute();
}

/** Spaces the account holds now (deleted ones no longer count). */
export async function countSpaces(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('spaces')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return row.count;
}

/** Slugs of the account's spaces that start with `stem` (to pick a free one), at most `limit`. */
export async function slugsLike(db: Db, accountId: string, stem: string, limit: number) {
  const rows = await db
    .selectFrom('spaces')
    .select('slug')
    .where('account_id', '=', accountId)
    .where('slug', 'like', `${escapeLike(stem)}%`)
    .limit(limit)
    .execute();
  return new Set(rows.map((row) => row.slug));
}

/** Inserts a space; undefined when the slug is taken in the account (a deleted space's too, until purged). */
export async function insertSpace(
  db: Db,
  accountId: string,
  slug: string,
  name: string,
): Promise<SpaceRow | undefined> {
  return db
    .insertInto('spaces')
    .values({ account_id: accountId, slug, name })
    .onConflict((conflict) => conflict.columns(['account_id', 'slug']).doNothing())
    .returning(columns)
    .executeTakeFirst();
}

export async function renameSpace(
  db: Db,
  accountId: string,
  id: string,
  name: string,
): Promise<SpaceRow | undefined> {
  return db
    .updateTable('spaces')
    .set({ name })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning(columns)
    .executeTakeFirst();
}

/** Marks the space deleted (its rows are purged in the background); false when it was already gone. */
export async function markSpaceDeleted(db: Db, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .updateTable('spaces')
    .set({ deleted_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Locks the account's row for the rest of the transaction: the same row lock
 * a graph write takes first (graph's changes.repository `lockAccountForWrite`).
 */
export async function lockAccountRow(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}
