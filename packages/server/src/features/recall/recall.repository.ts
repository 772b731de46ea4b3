import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';

/** Recall's reads (decision 020): a question's words, their counts, candidates scored by BM25. */

/** The question's words as the database stores observations' words: English stems, no stop words. */
export async function questionWords(
  db: Db,
  accountId: string,
  question: string,
  max: number,
): Promise<{ lexemes: string[]; observations: number; averageWords: number }> {
  const { rows } = await sql<{
    lexemes: string[] | null;
    observations: number;
    average: number | null;
  }>`
    ${planOnce}
    select (select array_agg(lexeme order by positions[1]) from unnest(to_tsvector('english', ${question}::text))) as lexemes,
           a.observation_count::int as observations,
           -- Observations' average length in words, from a sample of the
           -- account's first rows: exact enough for length normalisation.
           (select avg(length(o.terms))::float8
              from (select terms from observations o where o.account_id = ${accountId}
                     limit 500) o) as average
      from accounts a where a.id = ${accountId}
  `.execute(db);
  const row = rows[0];
  return {
    lexemes: (row?.lexemes ?? []).slice(0, max),
    observations: row?.observations ?? 0,
    averageWords: row?.average && row.average > 0 ? row.average : 1,
  };
}

/**
 * How many of the account's observations hold each word, counted up to `cap`.
 * Each count reads the word's matches through the word index (whose entries
 * span accounts; the account is checked on the rows found), stopping at the cap.
 */
export async function wordMatches(
  db: Db,
  accountId: string,
  queries: string[],
  cap: number,
): Promise<number[]> {
  const { rows } = await sql<{ matches: number }>`
    ${planOnce}
    select (select count(*)::int
              from (select 1 from (select account_id from observations o where o.terms @@ t.q offset 0) o
                     where o.account_id = ${accountId} limit ${hidden(sql`${cap}::int`)}) c) as matches
      from unnest(${hidden(sql`${queries}::tsquery[]`)}) with ordinality t(q, i)
     order by t.i
  `.execute(db);
  return rows.map((row) => row.matches);
}

/** Entities whose name holds one of the words (trigram word similarity, any case), best first. */
export async function namedEntities(
  db: Db,
  accountId: string,
  words: string[],
  max: number,
): Promise<string[]> {
  if (words.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    ${planOnce}
    select e.id
      from unnest(${hidden(sql`${words}::text[]`)}) w(word)
      cross join lateral (select id, account_id, lower(name) as lname from entities
                           where w.word <% lower(name) offset 0) e
     where e.account_id = ${accountId}
     group by e.id
     order by max(word_similarity(w.word, e.lname)) desc, e.id
     limit ${hidden(sql`${max}::int`)}
  `.execute(db);
  return rows.map((row) => row.id);
}

/** Entities one relation away from any of `ids`, either direction. */
export async function neighbourEntities(
  db: Db,
  accountId: string,
  ids: string[],
  max: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    ${planOnce}
    select distinct n.id from (
      (select r.to_id as id from relations r
        where r.account_id = ${accountId} and r.from_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
        limit ${hidden(sql`${max}::int`)})
      union all
      (select r.from_id from relations r
        where r.account_id = ${accountId} and r.to_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
        limit ${hidden(sql`${max}::int`)})
    ) n
  `.execute(db);
  return rows.map((row) => row.id);
}

export interface CandidateSearch {
  /** Every word of the question as a one-word tsquery, with its weight. */
  terms: { query: string; weight: number }[];
  /** Words whose matches are candidates, as one tsquery (null: none). */
  probe: string | null;
  /** Entities whose observations holding any word are candidates too, as are their latest few. */
  named: string[];
  /** Only observations of entities of these types / these entities (null: any). */
  types: string[] | null;
  entities: string[] | null;
  averageWords: number;
  budget: number;
  latestPerNamed: number;
  limit: number;
  k1: number;
  b: number;
  nameWeight: number;
}

export interface CandidateRow {
  id: string;
  content: string;
  createdAt: Date;
  entityId: string;
  entityName: string;
  entityType: string;
  score: number;
  coverage: number;
}

/**
 * The candidates, scored: BM25 with binary term frequency over the
 * observation's words, plus each word found in its entity's name at
 * `nameWeight`. Candidates are the probe words' matches (bounded by the
 * budget), the named entities' observations holding any word, and the
 * named entities' latest observations.
 */
export async function scoredCandidates(
  db: Db,
  accountId: string,
  search: CandidateSearch,
): Promise<CandidateRow[]> {
  const queries = search.terms.map((term) => term.query);
  const weights = search.terms.map((term) => term.weight);
  const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
  const named = search.named;
  const budget = hidden(sql`${search.budget}::int`);
  const anyWord = search.terms.map((term) => term.query).join(' | ') || null;

  const { rows } = await sql<CandidateRow>`
    ${planOnce}
    with q as materialized (
      select t.q, t.w from unnest(${hidden(sql`${queries}::tsquery[]`)}, ${hidden(sql`${weights}::float8[]`)}) t(q, w)
    ),
    found as materialized (
      (select o.id from (select id, account_id from observations o
                          where o.terms @@ ${hidden(sql`${search.probe}::tsquery`)} offset 0) o
        where o.account_id = ${accountId} limit ${budget})
      union
      (select o.id from observations o
        where o.account_id = ${accountId} and o.entity_id = any(${hidden(sql`${named}::uuid[]`)}::uuid[])
          and o.terms @@ ${hidden(sql`${anyWord}::tsquery`)}
        limit ${budget})
      union
      (select l.id from unnest(${hidden(sql`${named}::uuid[]`)}) n(id)
        cross join lateral (select o.id from observations o
                             where o.account_id = ${accountId} and o.entity_id = n.id
                             order by o.position desc
                             limit ${hidden(sql`${search.latestPerNamed}::int`)}) l)
    ),
    candidates as materialized (
      select o.id, o.content, o.created_at, o.terms, o.entity_id, e.name, e.type,
             to_tsvector('english', e.name) as name_terms,
             ${BM25_NORM(search)} as norm
        from found f
        cross join lateral (select * from observations o
                             where o.account_id = ${accountId} and o.id = f.id limit 1) o
        cross join lateral (select name, type from entities e
                             where e.account_id = ${accountId} and e.id = o.entity_id limit 1) e
       where (${hidden(sql`${search.types}::text[]`)} is null or e.type = any(${hidden(sql`${search.types}::text[]`)}::text[]))
         and (${hidden(sql`${search.entities}::uuid[]`)} is null or o.entity_id = any(${hidden(sql`${search.entities}::uuid[]`)}::uuid[]))
    )
    select c.id, c.content, c.created_at as "createdAt", c.entity_id as "entityId",
           c.name as "entityName", c.type as "entityType", s.score, s.matched / ${total}::float8 as coverage
      from candidates c
      cross join lateral (
        select coalesce(sum(q.w * (case when c.terms @@ q.q then c.norm else 0 end
                                   + case when c.name_terms @@ q.q then ${search.nameWeight}::float8 else 0 end)), 0) as score,
               coalesce(sum(q.w) filter (where c.terms @@ q.q or c.name_terms @@ q.q), 0) as matched
          from q) s
     order by s.score desc, c.created_at desc, c.id
     limit ${hidden(sql`${search.limit}::int`)}
  `.execute(db);
  return rows;
}

/** BM25's per-document factor for binary term frequency: (k1 + 1) / (1 + k1·(1 − b + b·len/avg)). */
function BM25_NORM(search: CandidateSearch) {
  const k1 = hidden(sql`${search.k1}::float8`);
  const b = hidden(sql`${search.b}::float8`);
  const average = hidden(sql`${search.averageWords}::float8`);
  return sql`(${k1} + 1) / (1 + ${k1} * (1 - ${b} + ${b} * length(o.terms) / ${average}))`;
}

/** The relations among `ids` (both ends in the list), by name, at most `max`. */
export async function relationsAmong(
  db: Db,
  accountId: string,
  ids: string[],
  max: number,
): Promise<{ from: string; to: string; relationType: string }[]> {
  if (ids.length < 2) return [];
  const { rows } = await sql<{ from: string; to: string; relationType: string }>`
    ${planOnce}
    select f.name as "from", t.name as "to", r.type as "relationType"
      from (select r.from_id, r.to_id, r.type from relations r
             where r.account_id = ${accountId} and r.from_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
               and r.to_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
             order by r.ordinal limit ${hidden(sql`${max}::int`)}) r
      join entities f on f.account_id = ${accountId} and f.id = r.from_id
      join entities t on t.account_id = ${accountId} and t.id = r.to_id
  `.execute(db);
  return rows;
}

/** The ids of the entities with these exact names (names no entity has are left out). */
export async function entityIdsByName(
  db: Db,
  accountId: string,
  names: string[],
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    ${planOnce}
    select e.id from unnest(${hidden(sql`${names}::text[]`)}) n(name)
      cross join lateral (select id from entities e
                           where e.account_id = ${accountId} and e.name = n.name limit 1) e
  `.execute(db);
  return rows.map((row) => row.id);
}
