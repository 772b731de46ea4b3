import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { escapeLike } from '../../db/like.js';

/** Where a type list stands: the last type answered and its count. */
export interface TypeKey {
  count: number;
  type: string;
}

export interface TypeCountRow {
  type: string;
  count: number;
}

/** `%`, `_` and `\` stand for themselves in a LIKE pattern once escaped. */

/**
 * One page of an account's types from its per-type counts (`entity_type_counts`
 * or `relation_type_counts`, both kept in the write transaction): most common
 * first, then by name, after `after`, optionally only the types starting with
 * `prefix` in any case (the `lower(type)` pattern index). Keyset paging over
 * the `(space_id, count desc, type)` index: the rest of `after`'s count,
 * then the lower counts, each an index range, so a page reads about its own
 * rows however deep it is and however many types share a count.
 */
export async function typeCountsPage(
  db: Db,
  table: 'entity_type_counts' | 'relation_type_counts',
  spaceId: string,
  page: { limit: number; after?: TypeKey | undefined; prefix?: string | undefined },
): Promise<TypeCountRow[]> {
  const { limit, after, prefix } = page;
  const types = () => {
    const query = db
      .selectFrom(table)
      .select(['type', 'count'])
      .where('space_id', '=', spaceId)
      .where('count', '>', 0);
    return prefix
      ? query.where(sql<boolean>`lower(type) like lower(${escapeLike(prefix)}) || '%'`)
      : query;
  };
  if (!after) return types().orderBy('count', 'desc').orderBy('type').limit(limit).execute();
  const ties = await types()
    .where('count', '=', after.count)
    .where('type', '>', after.type)
    .orderBy('type')
    .limit(limit)
    .execute();
  if (ties.length === limit) return ties;
  const fewer = await types()
    .where('count', '<', after.count)
    .orderBy('count', 'desc')
    .orderBy('type')
    .limit(limit - ties.length)
    .execute();
  return [...ties, ...fewer];
}
