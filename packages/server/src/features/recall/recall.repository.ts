import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';
import { entityNamed } from '../graph/index.js';

/** Recall's reads (decision 020): a question's words, their counts, candidates scored by BM25. */

/** A word as a one-word tsquery, in SQL: quoted, so any character in it is literal. */
const asQuery = (lexeme: RawBuilder<string>) =>
  sql`('''' || replace(replace(${lexeme}, '\\', '\\\\'), '''', '''''') || '''')::tsquery`;

export interface QuestionWord {
  lexeme: string;
  /** The word as a one-word tsquery. */
  query: string;
  /** Observations holding it, counted exactly up to the cap; null when the sample shows it is common. */
  matches: number | null;
  /** Of the sample's observations, how many hold it. */
  sampleHits: number;
  /** A word of the question's time words ("last", "week", "march", "2024"). */
  dated: boolean;
}

export interface Question {
  words: QuestionWord[];
  /** The account's observations. */
  observations: number;
  /** Observations in the sample, and their average length in words. */
  sampleSize: number;
  averageWords: number;
  /** Entities whose name holds a word of the question, the most fully named first. */
  named: string[];
}

/** Where the sample starts: observations' ids are random, so the rows after any id are a fair sample. */
const SAMPLE_PIVOT = '80000000-0000-4000-8000-000000000000';

/**
 * Everything recall needs to know about a question, in one statement: its
 * words as observations store them (English stems, no stop words), how many
 * observations hold each, and the entities it names.
 *
 * Counting a common word exactly would read every observation holding it, so
 * each word is first counted in a fixed sample of the account's observations
 * (the rows after a point in the random id space); a word the sample shows to
 * be common is left to the sample's estimate, the others are counted exactly,
 * up to `cap`. The word indexes lead with the space (migration 028), so only
 * the space's rows are read.
 */
export async function readQuestion(
  db: Db,
  spaceId: string,
  question: string,
  limits: { words: number; cap: number; sample: number; named: number },
  timeWords = '',
): Promise<Question> {
  const cap = hidden(sql`${limits.cap}::int`);
  const sampleSize = hidden(sql`${limits.sample}::int`);
  const pivot = hidden(sql`${SAMPLE_PIVOT}::uuid`);
  const { rows } = await sql<{
    lexeme: string | null;
    query: string | null;
    sample_hits: number | null;
    dated: boolean | null;
    matches: number | null;
    observations: number;
    sample_size: number;
    average: number | null;
    named: string[] | null;
  }>`
    ${planOnce}
    with words as materialized (
      select t.lexeme, ${asQuery(sql`t.lexeme`)} as q, t.positions[1] as pos,
             t.lexeme = any(tsvector_to_array(to_tsvector('english', ${hidden(sql`${timeWords}::text`)}))) as dated
        from unnest(to_tsvector('english', ${hidden(sql`${question}::text`)})) t
       order by t.positions[1] limit ${hidden(sql`${limits.words}::int`)}
    ),
    sample as materialized (
      select terms from (
        (select terms from observations o where o.space_id = ${spaceId} and o.id >= ${pivot}
          order by o.id limit ${sampleSize})
        union all
        (select terms from observations o where o.space_id = ${spaceId} and o.id < ${pivot}
          order by o.id limit ${sampleSize})
      ) s limit ${sampleSize}
    ),
    account as (
      select observation_count::int as observations,
             (select count(*)::int from sample) as sample_size,
             (select avg(length(terms))::float8 from sample) as average
        from spaces where id = ${spaceId}
    ),
    counted as (
      select w.lexeme, w.q, w.pos, w.dated, (select count(*)::int from sample where sample.terms @@ w.q) as hits
        from words w
    ),
    any_word as materialized (select string_agg(q::text, ' | ')::tsquery as q from words),
    named as (
      -- By a word of its name or of an alias (migration 033), the most fully named first.
      select array_agg(n.id order by n.share desc, n.id) as ids from (
        select e.id, max((select count(*) from unnest(e.words) u
                           where u.lexeme in (select lexeme from words))::float8
                         / greatest(length(e.words), 1)) as share
          from ((select id, to_tsvector('english', name) as words from entities e
                  where e.space_id = ${spaceId}
                    and to_tsvector('english', name) @@ (select q from any_word)
                 limit 200)
                union all
                (select id, alias_words(aliases) from entities e
                  where e.space_id = ${spaceId} and e.aliases <> '{}'
                    and alias_words(e.aliases) @@ (select q from any_word)
                 limit 200)) e
         group by e.id
         limit 200
      ) n
    )
    select c.lexeme, c.q::text as query, c.hits as sample_hits, c.dated,
           -- A word the sample shows to be common (it would pass the cap
           -- twice over) is not counted; the others are, up to the cap.
           case when c.hits::float8 * a.observations < 2 * ${cap} * greatest(a.sample_size, 1)
                then (select count(*)::int from (
                        select 1 from observations o
                         where o.space_id = ${spaceId} and o.terms @@ c.q limit ${cap}) m)
           end as matches,
           a.observations, a.sample_size, a.average, (select ids from named) as named
      from account a left join counted c on true
     order by c.pos
  `.execute(db);
  const first = rows[0];
  return {
    words: rows
      .filter((row) => row.lexeme !== null)
      .map((row) => ({
        lexeme: row.lexeme!,
        query: row.query!,
        matches: row.matches,
        sampleHits: row.sample_hits ?? 0,
        dated: row.dated ?? false,
      })),
    observations: first?.observations ?? 0,
    sampleSize: first?.sample_size ?? 0,
    averageWords: first?.average && first.average > 0 ? first.average : 1,
    named: (first?.named ?? []).slice(0, limits.named),
  };
}

/** Entities one relation away from any of `ids`, either direction. */
export async function neighbourEntities(
  db: Db,
  spaceId: string,
  ids: string[],
  max: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    ${planOnce}
    select distinct n.id from (
      (select r.to_id as id from relations r
        where r.space_id = ${spaceId} and r.from_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
        limit ${hidden(sql`${max}::int`)})
      union all
      (select r.from_id from relations r
        where r.space_id = ${spaceId} and r.to_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
        limit ${hidden(sql`${max}::int`)})
    ) n
  `.execute(db);
  return rows.map((row) => row.id);
}

export interface CandidateSearch {
  /** Every word of the question as a one-word tsquery, with its weight. */
  terms: { query: string; weight: number; dated?: boolean }[];
  /**
   * Which observations score as holding the question's time words (`dated`
   * terms) besides those that write them: `dated`, one with a `valid_from`
   * (the question's lenient range kept it, so its date is in range); `all`,
   * every one (the strict range of `since`/`until` kept it); null, only those
   * that write them. Under a range, every observation it kept counts them as
   * matched words (coverage): the range, not the words, says when.
   */
  timeWordsMatch?: 'dated' | 'all' | null;
  /** Words whose matches are candidates, as one tsquery (null: none). */
  probe: string | null;
  /**
   * Entities the question names: their observations holding any word are
   * candidates (of each, the latest `namedScan` are read), as are their latest few.
   */
  named: string[];
  /** Only observations of entities of these types / these entities (null: any). */
  types: string[] | null;
  entities: string[] | null;
  /** The time range kept to (time-range.ts; null: any time). */
  range: RangeFilter | null;
  averageWords: number;
  budget: number;
  latestPerNamed: number;
  namedScan: number;
  limit: number;
  k1: number;
  b: number;
  nameWeight: number;
}

/** A time range as the SQL keeps to it: strict (parameters) or only by `validFrom` (question). */
export interface RangeFilter {
  since: Date | null;
  until: Date | null;
  strict: boolean;
}

/**
 * Whether observation `o` falls in the range: its time is `valid_from`, else
 * `created_at`; with `valid_to` too it is a span, which must overlap. A
 * lenient range keeps every observation without a `valid_from`. Read on
 * rows the word indexes found, never a scan of its own.
 */
export function inRange(range: RangeFilter, o = sql.ref('o')): RawBuilder<boolean> {
  const since = hidden(sql`${range.since?.toISOString() ?? '-infinity'}::timestamptz`);
  const until = hidden(sql`${range.until?.toISOString() ?? 'infinity'}::timestamptz`);
  const dated = sql`(${o}.valid_from <= ${until} and coalesce(${o}.valid_to, ${o}.valid_from) >= ${since})`;
  return range.strict
    ? sql<boolean>`(case when ${o}.valid_from is null
                         then ${o}.created_at >= ${since} and ${o}.created_at <= ${until}
                         else ${dated} end)`
    : sql<boolean>`(${o}.valid_from is null or ${dated})`;
}

export interface CandidateRow {
  id: string;
  content: string;
  createdAt: Date;
  validFrom: Date | null;
  validTo: Date | null;
  entityId: string;
  entityName: string;
  entityType: string;
  score: number;
  coverage: number;
  /** The weight (IDF) of the rarest question word it holds, in its text or its entity's name. */
  rarest: number;
  /** Whether its entity's name (or an alias) holds a word of the question: the question names it. */
  named: boolean;
  /** Its place among its entity's observations (the order they were added in). */
  position: number;
}

/** The most question words whose candidates' statement is planned once. */
const PLANNED_TERMS_MAX = 16;

/**
 * Whether the candidates' statement is planned once (decision 015): planning
 * it cost PGlite about 2 ms a call at 100k observations. Its text changes
 * with the question's words (one expression each), so only the common shapes
 * are named: up to PLANNED_TERMS_MAX words, none of them a time word, no
 * type or entity filter — a few dozen texts, well inside the session's
 * named statements (`StatementNames`).
 */
const plannedOnce = (search: CandidateSearch) =>
  search.terms.length <= PLANNED_TERMS_MAX &&
  !search.terms.some((term) => term.dated) &&
  !search.types &&
  !search.entities;

/**
 * The candidates, scored in one statement: BM25 with binary term frequency
 * over the observation's words, plus each word found in the name of a named
 * entity at `nameWeight`. Candidates are the probe words' matches (at most
 * the budget), the named entities' observations holding any word, and the
 * named entities' latest observations. The score is one expression per word
 * (written out, not a join, so each candidate is scored in one pass); only
 * the best `limit` are read in full.
 */
export async function scoredCandidates(
  db: Db,
  spaceId: string,
  search: CandidateSearch,
): Promise<CandidateRow[]> {
  // Every value hidden, the space too, so one plan serves all its calls.
  const space = hidden(sql`${spaceId}::uuid`);
  const named = hidden(sql`${search.named}::uuid[]`);
  const budget = hidden(sql`${search.budget}::int`);
  const anyWord = search.terms.map((term) => term.query).join(' | ') || null;
  const k1 = hidden(sql`${search.k1}::float8`);
  const b = hidden(sql`${search.b}::float8`);
  const average = hidden(sql`${search.averageWords}::float8`);
  const total = search.terms.reduce((sum, term) => sum + term.weight, 0) || 1;

  // Per word, matched once per candidate (the materialized `candidates` step):
  // does the observation hold it (t<i>), does its named entity's name (n<i>).
  const textMatch = search.terms.map(
    (term, i) => sql`f.terms @@ ${hidden(sql`${term.query}::tsquery`)} as ${sql.ref(`t${i}`)}`,
  );
  const nameMatch = search.terms.map(
    (term, i) =>
      sql`coalesce(n.words @@ ${hidden(sql`${term.query}::tsquery`)}, false) as ${sql.ref(`n${i}`)}`,
  );
  const inWords = (i: number) => sql.ref(`c.t${i}`);
  const inName = search.terms.map((_, i) => sql.ref(`c.n${i}`));
  // A time word also counts as held by what the range kept.
  const heldByDate =
    search.range && search.timeWordsMatch === 'dated'
      ? sql` or c.valid_from is not null`
      : search.range && search.timeWordsMatch === 'all'
        ? sql` or true`
        : sql``;
  const inText = search.terms.map((term, i) =>
    term.dated ? sql`(${inWords(i)}${heldByDate})` : sql`${inWords(i)}`,
  );
  // Under a range, no observation it kept falls short of the question for lacking its time words.
  const covered = search.terms.map((term, i) =>
    term.dated && search.range && search.timeWordsMatch ? sql`true` : inText[i]!,
  );
  const weight = (i: number) => hidden(sql`${search.terms[i]!.weight}::float8`);
  const sum = (parts: RawBuilder<unknown>[]) =>
    parts.length > 0 ? sql.join(parts, sql` + `) : sql`0`;
  const score = sum(
    search.terms.map(
      (_, i) =>
        sql`${weight(i)} * ((case when ${inText[i]!} then c.norm else 0 end) + (case when ${inName[i]!} then ${hidden(sql`${search.nameWeight}::float8`)} else 0 end))`,
    ),
  );
  const matched = sum(
    search.terms.map(
      (_, i) => sql`(case when ${covered[i]!} or ${inName[i]!} then ${weight(i)} else 0 end)`,
    ),
  );
  // The rarest word it holds, in its text or its entity's name (time words say nothing of the topic).
  const held = search.terms.map((term, i) =>
    term.dated
      ? sql`0`
      : sql`(case when ${inWords(i)} or ${inName[i]!} then ${weight(i)} else 0 end)`,
  );
  const rarest = held.length > 0 ? sql`greatest(${sql.join(held, sql`, `)})` : sql`0`;
  const isNamed = inName.length > 0 ? sql`(${sql.join(inName, sql` or `)})` : sql`false`;

  // Only in the statement when a range is asked for: without one, the statement is as it was.
  const range = search.range ? sql`and ${inRange(search.range)}` : sql``;
  // The filters read each candidate's entity: only when asked for.
  const types = search.types ? hidden(sql`${search.types}::text[]`) : null;
  const entities = search.entities ? hidden(sql`${search.entities}::uuid[]`) : null;
  const keep =
    types || entities
      ? sql`cross join lateral (select type from entities e
                                where e.space_id = ${space} and e.id = s.entity_id limit 1) e
             where ${types ? sql`e.type = any(${types}::text[])` : sql`true`}
               and ${entities ? sql`s.entity_id = any(${entities}::uuid[])` : sql`true`}`
      : sql``;

  const { rows } = await sql<CandidateRow>`
    ${plannedOnce(search) ? planOnce : sql``}
    with found as (
      (select o.id, o.entity_id, o.created_at, o.terms, o.valid_from from observations o
        where o.space_id = ${space} and o.terms @@ ${hidden(sql`${search.probe}::tsquery`)}
              ${range} limit ${budget})
      union all
      -- The named entities' own rows, newest first, through each one's index: the
      -- word index would read every match of a common word in the space to keep a few.
      (select o.id, o.entity_id, o.created_at, o.terms, o.valid_from from unnest(${named}::uuid[]) n(id)
        cross join lateral (select o.id, o.entity_id, o.created_at, o.terms, o.valid_from, o.valid_to
                              from observations o
                             where o.space_id = ${space} and o.entity_id = n.id
                             order by o.position desc
                             limit ${hidden(sql`${search.namedScan}::int`)}) o
        where o.terms @@ ${hidden(sql`${anyWord}::tsquery`)} ${range}
        limit ${budget})
      union all
      -- The latest few, then those in range: never more rows read than without one.
      (select l.id, l.entity_id, l.created_at, l.terms, l.valid_from from unnest(${named}::uuid[]) n(id)
        cross join lateral (select o.id, o.entity_id, o.created_at, o.terms, o.valid_from, o.valid_to
                              from observations o
                             where o.space_id = ${space} and o.entity_id = n.id
                             order by o.position desc
                             limit ${hidden(sql`${search.latestPerNamed}::int`)}) l
        ${search.range ? sql`where ${inRange(search.range, sql.ref('l'))}` : sql``})
    ),
    names as materialized (
      -- A word of an alias counts as one of the name.
      select e.id, to_tsvector('english', e.name) || alias_words(e.aliases) as words
        from unnest(${named}::uuid[]) n(id)
        cross join lateral (select id, name, aliases from entities e
                             where e.space_id = ${space} and e.id = n.id limit 1) e
    ),
    candidates as materialized (
      select f.id, f.entity_id, f.created_at, f.valid_from,
             (${k1} + 1) / (1 + ${k1} * (1 - ${b} + ${b} * length(f.terms) / ${average})) as norm
             ${textMatch.length > 0 ? sql`, ${sql.join([...textMatch, ...nameMatch])}` : sql``}
        from found f
        left join names n on n.id = f.entity_id
    ),
    scored as (
      select c.id, c.entity_id, c.created_at, ${score} as score, ${matched} as matched,
             ${rarest} as rarest, ${isNamed} as named
        from candidates c
    ),
    best as (
      select s.* from scored s ${keep}
       order by s.score desc, s.created_at desc, s.id
       limit ${hidden(sql`${search.limit}::int`)}
    )
    select s.id, o.content, s.created_at as "createdAt", o.valid_from as "validFrom",
           o.valid_to as "validTo", s.entity_id as "entityId",
           e.name as "entityName", e.type as "entityType", s.score,
           s.matched / ${total}::float8 as coverage, s.rarest, s.named, o.position
      from best s
      -- Primary-key lookups for the few kept, never a join planned from a guess.
      cross join lateral (select content, valid_from, valid_to, position from observations o
                           where o.space_id = ${space} and o.id = s.id limit 1) o
      cross join lateral (select name, type from entities e
                           where e.space_id = ${space} and e.id = s.entity_id limit 1) e
     order by s.score desc, s.created_at desc, s.id
  `.execute(db);
  // An observation found by two arms is scored twice, alike: keep it once.
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
}

/** An observation found beside one of recall's best results. */
export interface AdjacentRow {
  id: string;
  content: string;
  createdAt: Date;
  validFrom: Date | null;
  validTo: Date | null;
  position: number;
  /** The index in `sources` of the observation it was found beside. */
  source: number;
}

/**
 * The observations added just before and just after each source on the same
 * entity (by `position`, through the entity's index), kept to the range and
 * to entities holding at least `minRecord` observations; `source` is the
 * index of the source each was found beside.
 */
export async function adjacentObservations(
  db: Db,
  spaceId: string,
  sources: Pick<CandidateRow, 'entityId' | 'position'>[],
  range: RangeFilter | null,
  minRecord: number,
): Promise<AdjacentRow[]> {
  if (sources.length === 0) return [];
  const read = (before: boolean) => sql`
    select o.id, o.content, o.created_at as "createdAt", o.valid_from as "validFrom",
           o.valid_to as "validTo", o.position, (s.source - 1)::int as source
      from unnest(${hidden(sql`${sources.map((s) => s.entityId)}::uuid[]`)},
                  ${hidden(sql`${sources.map((s) => s.position)}::int[]`)})
             with ordinality s(entity_id, position, source)
      cross join lateral (select e.observations_count from entities e
                           where e.space_id = ${spaceId} and e.id = s.entity_id limit 1) e
      cross join lateral (select o.id, o.content, o.created_at, o.valid_from, o.valid_to, o.position
                            from observations o
                           where o.space_id = ${spaceId} and o.entity_id = s.entity_id
                             and o.position ${before ? sql`<` : sql`>`} s.position
                           order by o.position ${before ? sql`desc` : sql`asc`} limit 1) o
     where e.observations_count >= ${hidden(sql`${minRecord}::int`)}
       ${range ? sql`and ${inRange(range)}` : sql``}`;
  const { rows } = await sql<AdjacentRow>`
    ${planOnce}
    (${read(true)}) union all (${read(false)})
  `.execute(db);
  return rows;
}

/** Observations by id, with their entity, kept to the filters (types, entities); unknown ids are left out. */
export async function observationsByIds(
  db: Db,
  spaceId: string,
  ids: string[],
  filters: { types: string[] | null; entities: string[] | null; range: RangeFilter | null },
): Promise<Omit<CandidateRow, 'score' | 'coverage' | 'rarest' | 'named'>[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<Omit<CandidateRow, 'score' | 'coverage' | 'rarest' | 'named'>>`
    ${planOnce}
    select o.id, o.content, o.created_at as "createdAt", o.valid_from as "validFrom",
           o.valid_to as "validTo", o.entity_id as "entityId", o.position,
           e.name as "entityName", e.type as "entityType"
      from unnest(${hidden(sql`${ids}::uuid[]`)}) s(id)
      cross join lateral (select id, content, created_at, valid_from, valid_to, entity_id, position
                            from observations o
                           where o.space_id = ${spaceId} and o.id = s.id limit 1) o
      cross join lateral (select name, type from entities e
                           where e.space_id = ${spaceId} and e.id = o.entity_id limit 1) e
     where (${hidden(sql`${filters.types}::text[]`)} is null or e.type = any(${hidden(sql`${filters.types}::text[]`)}::text[]))
       and (${hidden(sql`${filters.entities}::uuid[]`)} is null or o.entity_id = any(${hidden(sql`${filters.entities}::uuid[]`)}::uuid[]))
       and ${filters.range ? inRange(filters.range) : sql`true`}
  `.execute(db);
  return rows;
}

/** The relations among `ids` (both ends in the list), by name, at most `max`. */
export async function relationsAmong(
  db: Db,
  spaceId: string,
  ids: string[],
  max: number,
): Promise<{ from: string; to: string; relationType: string }[]> {
  if (ids.length < 2) return [];
  const { rows } = await sql<{ from: string; to: string; relationType: string }>`
    ${planOnce}
    select f.name as "from", t.name as "to", r.type as "relationType"
      from (select r.from_id, r.to_id, r.type from relations r
             where r.space_id = ${spaceId} and r.from_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
               and r.to_id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
             order by r.ordinal limit ${hidden(sql`${max}::int`)}) r
      join entities f on f.space_id = ${spaceId} and f.id = r.from_id
      join entities t on t.space_id = ${spaceId} and t.id = r.to_id
  `.execute(db);
  return rows;
}

/** The names and aliases of some entities. */
export async function namesOf(db: Db, spaceId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ name: string; aliases: string[] | null }>`
    select e.name, e.aliases from entities e
     where e.space_id = ${spaceId} and e.id = any(${hidden(sql`${ids}::uuid[]`)}::uuid[])
  `.execute(db);
  return rows.flatMap((row) => [row.name, ...(row.aliases ?? [])]);
}

/** The ids of the entities with these exact names (names no entity has are left out). */
export async function entityIdsByName(db: Db, spaceId: string, names: string[]): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    ${planOnce}
    select e.id from unnest(${hidden(sql`${names}::text[]`)}) n(name)
      cross join lateral ${entityNamed(spaceId, sql`n.name`, sql`e.id`)} e
  `.execute(db);
  return rows.map((row) => row.id);
}
