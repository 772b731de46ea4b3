import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { type EntityRow, escapeLike } from './entities.repository.js';

/** Search over entity names, types and observations, ranked and bounded. Scoped by account. */

/**
 * The query's words as a full-text query over observations: the words in
 * order, next to each other, each matching the start of a word
 * (`memory safe` finds "Memory-safe systems"). Null when the query has no word.
 */
export function wordsQuery(query: string): string | null {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return words ? words.map((word) => `'${word}':*`).join(' <-> ') : null;
}

/**
 * Case-insensitive search, ranked: exact name, name prefix, name substring,
 * type substring, then observations containing the query's words (decision
 * 006). Names are found through a trigram index, observations through a GIN
 * index over their words, types through the small per-type count table.
 */
export async function searchEntities(
  db: Db,
  accountId: string,
  filter: {
    query: string;
    types?: string[] | undefined;
    limit: number;
    offset: number;
  },
): Promise<{ rows: EntityRow[]; total: number }> {
  const term = filter.query.toLowerCase();
  const contains = `%${escapeLike(term)}%`;
  const prefix = `${escapeLike(term)}%`;
  const types = filter.types?.length ? filter.types : null;
  const words = wordsQuery(filter.query);
  // The word match runs alone behind a fence (offset 0), so the planner can
  // only answer it from the word index, whatever its statistics say about
  // the account; the account is checked on the few rows found.
  const wordHits = words
    ? sql`(select account_id, entity_id from observations
            where to_tsvector('simple', content) @@ to_tsquery('simple', ${words}) offset 0)`
    : sql`(select account_id, entity_id from observations where false)`;
  const typeFilter = types ? sql`and e.type = any(${types}::text[])` : sql``;

  // Enough rows of each kind to fill the page; name hits outrank the rest, so
  // types and observations are only read when names did not fill it.
  const k = filter.offset + filter.limit;

  const page = sql<EntityRow>`
    with name_hits as (
      (select e.id, 0 as rank, lower(e.name) as lname from entities e
        where e.account_id = ${accountId} and lower(e.name) = ${term} ${typeFilter})
      union all
      (select e.id, 1, lower(e.name) from entities e
        where e.account_id = ${accountId} and lower(e.name) like ${prefix}
          and lower(e.name) <> ${term} ${typeFilter}
        order by lower(e.name), e.id limit ${k})
      union all
      (select e.id, 2, lower(e.name) from entities e
        where e.account_id = ${accountId} and lower(e.name) like ${contains}
          and lower(e.name) not like ${prefix} ${typeFilter}
        order by lower(e.name), e.id limit ${k})
    ),
    other_hits as (
      select e.id, 3 as rank, lower(e.name) as lname from entities e
       where (select count(*) from name_hits) < ${k}
         and e.account_id = ${accountId} ${typeFilter}
         and e.type in (select t.type from entity_type_counts t
                         where t.account_id = ${accountId} and lower(t.type) like ${contains})
      union all
      select e.id, 4, lower(e.name)
        from (select distinct o.entity_id from ${wordHits} o
               where (select count(*) from name_hits) < ${k}
                 and o.account_id = ${accountId}) o
        -- One primary-key lookup per hit, never a hash join over every entity:
        -- the limit keeps the planner from flattening the lateral into a join
        -- it would plan from the word match's (poor) row estimate.
        cross join lateral (select e.id, e.name, e.type from entities e
                             where e.account_id = ${accountId} and e.id = o.entity_id
                             limit 1) e
       where true ${typeFilter}
    ),
    ranked as (
      select id, min(rank) as rank, min(lname) as lname
        from (select * from name_hits union all select * from other_hits) h
       group by id
       order by 2, 3, 1
       limit ${k}
    )
    select e.id, e.name, e.type, e.metadata, e.observations_count, e.created_at, e.updated_at
      from ranked r
      cross join lateral (select * from entities e
                           where e.account_id = ${accountId} and e.id = r.id limit 1) e
     order by r.rank, r.lname, r.id
    offset ${filter.offset}
  `.execute(db);

  const { rows } = await page;
  // A page the matches did not fill holds all of them from the offset on
  // (each arm stops at k only when k rows fill the page anyway): the total
  // needs no second pass. Only a full page, or one past the end, counts.
  if (rows.length > 0 ? rows.length < filter.limit : filter.offset === 0) {
    return { rows, total: filter.offset + rows.length };
  }
  // The exact total counts ids only: no join back, no window over every match.
  const counted = await sql<{ total: number }>`
    select count(*)::int as total from (
      select e.id from entities e
       where e.account_id = ${accountId} and lower(e.name) like ${contains} ${typeFilter}
      union
      select e.id from entities e
       where e.account_id = ${accountId} ${typeFilter}
         and e.type in (select t.type from entity_type_counts t
                         where t.account_id = ${accountId} and lower(t.type) like ${contains})
      union
      select o.entity_id from ${wordHits} o
       ${types ? sql`join entities e on e.account_id = o.account_id and e.id = o.entity_id` : sql``}
       where o.account_id = ${accountId} ${typeFilter}
    ) matches
  `.execute(db);
  return { rows, total: counted.rows[0]?.total ?? 0 };
}
