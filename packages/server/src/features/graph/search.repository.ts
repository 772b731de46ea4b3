import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';
import { readAnswer, type AnswerBudget, type AnswerRows } from './answers.repository.js';
import { escapeLike } from '../../db/like.js';
import type { EntityRow } from './entities.repository.js';

/** Search over entity names, types and observations, ranked and bounded. Scoped by account. */

/**
 * The query's words as a full-text query over observations' stored words
 * (English stems, migration 018): the words in order, next to each other,
 * each matching the start of a word's stem (`memory safe` finds "Memory-safe
 * systems", `running` finds "runs"). English stop words alone match nothing.
 * Null when the query has no word.
 */
export function wordsQuery(query: string): string | null {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return words ? words.map((word) => `'${word}':*`).join(' <-> ') : null;
}

/**
 * Whether the trigram index can narrow a substring match: pg_trgm needs three
 * word characters in a row (ASCII ones, to hold under PGlite's C locale too).
 * Without them the index would be read whole, so such a term is matched
 * against the account's names instead.
 */
function hasTrigram(term: string): boolean {
  return /[a-z0-9]{3}/.test(term);
}

interface SearchFilter {
  query: string;
  types?: string[] | undefined;
}

/**
 * Case-insensitive search, ranked: exact name (or alias), name prefix, name
 * (or alias) substring, type substring, then observations containing the query's words (decision
 * 006). Every match is gathered once, from an index each — names through the
 * trigram index, observations through the GIN index over their words, types
 * through the small per-type count table — as `(id, lname, rank)`, which
 * gives both the page and the exact total. Each arm's access path is fixed by
 * its shape, never by an estimate of the term, so the statement is planned
 * once (decision 015).
 */
function hitsOf(spaceId: string, filter: SearchFilter) {
  const lowered = filter.query.toLowerCase();
  // Every value is `hidden` from the planner: a custom plan that sees a rare
  // term looks cheaper than the generic one, and the statement would be
  // planned on every call (1 ms on PGlite) for the same plan.
  const term = hidden(sql<string>`${lowered}::text`);
  const types = hidden(sql`${filter.types?.length ? filter.types : null}::text[]`);

  // Names containing the term. Behind a fence (offset 0) the trigram match
  // can only be answered from its index, across accounts, and the account is
  // checked on the rows found; a term the index cannot narrow reads the
  // account's names instead (the inner fence lowers each name once).
  const names = hasTrigram(lowered)
    ? sql`(select id, space_id, type, lower(name) as lname from entities
            where lower(name) like ${hidden(sql`${`%${escapeLike(lowered)}%`}::text`)} offset 0)`
    : sql`(select * from (select id, space_id, type, lower(name) as lname from entities
                           where space_id = ${spaceId} offset 0) n
            where strpos(n.lname, ${term}) > 0)`;

  const ofTypes = sql`(${types} is null or e.type = any(${types}::text[]))`;
  const inAliases = (aliases: RawBuilder<unknown>) =>
    sql`strpos(lower(array_to_string(${aliases}, chr(31))), ${term}) > 0`;
  return sql`
      select e.id, e.lname,
             case when e.lname = ${term} then 0 when starts_with(e.lname, ${term}) then 1 else 2 end as rank
        from ${names} e
       where e.space_id = ${spaceId} and ${ofTypes}
      union all
      -- Each arm below keeps only entities no earlier arm found, so every
      -- match is counted once and nothing needs grouping.
      -- Aliases containing the term (an exact one ranks as an exact name), read
      -- from the few entities that have any (a partial index, migration 032).
      select e.id, lower(e.name),
             case when ${term} = any(e.laliases) then 0 else 2 end
        from (select id, type, name, array(select lower(a) from unnest(aliases) a) as laliases
                from entities where space_id = ${spaceId} and aliases <> '{}' offset 0) e
       where ${inAliases(sql`e.laliases`)} and strpos(lower(e.name), ${term}) = 0 and ${ofTypes}
      union all
      select e.id, lower(e.name), 3
        from entity_type_counts t
        -- The entities of each matching type through the type index, never a
        -- scan of the account planned from a guess at how many types match.
        cross join lateral (select id, type, name, aliases from entities e
                             where e.space_id = t.space_id and e.type = t.type offset 0) e
       where t.space_id = ${spaceId} and strpos(lower(t.type), ${term}) > 0
         and strpos(lower(e.name), ${term}) = 0 and not ${inAliases(sql`e.aliases`)}
         and ${ofTypes}
      union all
      select e.id, lower(e.name), 4
        from (select distinct o.entity_id from observations o
               where o.space_id = ${spaceId}
                 and o.terms @@ to_tsquery('english', ${hidden(sql`${wordsQuery(filter.query)}::text`)})) o
        -- One primary-key lookup per hit, never a join planned from an estimate.
        cross join lateral (select id, type, name, aliases from entities e
                             where e.space_id = ${spaceId} and e.id = o.entity_id
                             limit 1) e
       where strpos(lower(e.name), ${term}) = 0 and strpos(lower(e.type), ${term}) = 0
         and not ${inAliases(sql`e.aliases`)} and ${ofTypes}`;
}

/**
 * One page of the hits, best first: `(id, rank, lname)`. With `after` (an
 * entity id) the page starts right after that hit, by key; when it is no
 * longer a hit (deleted or changed since), the page skips `offset` hits instead.
 */
const pageOf = (page: { limit: number; offset: number; after?: string | undefined }) => {
  const limit = hidden(sql`${page.limit}::int`);
  const offset = hidden(sql`${page.offset}::int`);
  if (!page.after) {
    return sql`
  select id, rank, lname from hits
   order by rank, lname, id
   limit ${limit}
  offset ${offset}`;
  }
  const after = hidden(sql`${page.after}::uuid`);
  return sql`
  select id, rank, lname from hits
   where not exists (select 1 from hits b where b.id = ${after})
      or (rank, lname, id) > (select b.rank, b.lname, b.id from hits b where b.id = ${after})
   order by rank, lname, id
   limit ${limit}
  offset (case when exists (select 1 from hits b where b.id = ${after}) then 0 else ${offset} end)`;
};

/** One page of the entities matching the query, and how many match in all. */
export async function searchEntities(
  db: Db,
  spaceId: string,
  filter: SearchFilter & { limit: number; offset: number; after?: string | undefined },
): Promise<{ rows: EntityRow[]; total: number }> {
  const result = await sql<EntityRow & { total: number }>`
    ${planOnce} with hits as materialized (${hitsOf(spaceId, filter)})
    select m.total, e.id, e.name, e.type, e.metadata, e.aliases, e.observations_count, e.created_at,
           e.updated_at
      from (select count(*)::int as total from hits) m
      left join lateral (${pageOf(filter)}) p on true
      left join lateral (select * from entities e
                          where e.space_id = ${spaceId} and e.id = p.id limit 1) e on true
     order by p.rank, p.lname, p.id
  `.execute(db);

  const total = result.rows[0]?.total ?? 0;
  // A page past the end is one row holding only the total.
  const rows = result.rows.filter((row) => row.id !== null).map(({ total: _, ...row }) => row);
  return { rows, total };
}

/** The answer of a search (see answers.repository): one page of matches, and how many match in all. */
export async function searchAnswer(
  db: Db,
  spaceId: string,
  filter: SearchFilter & { limit: number; offset: number },
  budget: AnswerBudget,
): Promise<AnswerRows & { total: number }> {
  const answer = await readAnswer(
    db,
    spaceId,
    {
      with: sql`hits as materialized (${hitsOf(spaceId, filter)}),`,
      page: sql`select id, row_number() over (order by rank, lname, id) as ord from (${pageOf(filter)}) p`,
      total: sql<number>`(select count(*)::int from hits)`,
    },
    budget,
  );
  return { ...answer, total: answer.total ?? 0 };
}
