import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { planOnce } from '../../db/prepared.js';
import { NAME_KEY_MAX } from './name-key.js';

/**
 * The candidates' tables (migration 031) — names and their blocking keys,
 * pairs, dismissals — and what the finder reads of the graph's: entities,
 * relations and observations by space. The finder's position and lease are
 * in finder.repository.ts.
 */

// ---------------------------------------------------------------- entities and their names

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  /** Its other names (merged entities' names among them): compared like its name. */
  aliases: string[];
}

/** The space and its account are not being deleted. */
const liveSpace = (spaceId: string) => sql`exists (
  select 1 from spaces s join accounts a on a.id = s.account_id
   where s.id = ${spaceId} and s.deleted_at is null and a.deleted_at is null)`;

/**
 * The entities of a live space (none in a space or account being deleted,
 * whose rows the purge is removing: the finder adds nothing there), each
 * with the seq at which its comparison failed, if it did (`recordFailures`).
 */
export async function entitiesOf(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<(EntityRow & { failed_seq: number | null })[]> {
  if (ids.length === 0) return [];
  const result = await sql<EntityRow & { failed_seq: number | null }>`
    select e.id, e.name, e.type, e.aliases, f.failed_seq::float8 as failed_seq
      from entities e
      left join duplicate_failures f on f.space_id = e.space_id and f.entity_id = e.id
     where e.space_id = ${spaceId} and e.id = any(${ids}::uuid[])
       and ${liveSpace(spaceId)}
  `.execute(db);
  return result.rows;
}

/**
 * Entities the finder could not compare: each is recorded with the reason
 * (an error's kind, never a name's text) and the account's seq, and its names
 * and pairs go, so that comparing the others no longer meets it. The finder
 * skips it until a later change renames it.
 */
export async function recordFailures(
  db: Db,
  spaceId: string,
  failures: { id: string; reason: string }[],
): Promise<void> {
  if (failures.length === 0) return;
  const ids = failures.map((failure) => failure.id);
  await db.transaction().execute(async (trx) => {
    await sql`
      insert into duplicate_failures as f (space_id, entity_id, reason, failed_seq)
      select ${spaceId}, r.id, r.reason,
             coalesce((select a.event_seq from spaces s join accounts a on a.id = s.account_id
                        where s.id = ${spaceId}), 0)
        from jsonb_to_recordset(${JSON.stringify(failures)}::jsonb) as r(id uuid, reason text)
      on conflict (space_id, entity_id) do update
         set reason = excluded.reason, failed_seq = excluded.failed_seq, failed_at = now()
    `.execute(trx);
    await dropNamesAndPairs(trx, spaceId, ids);
  });
}

/** The entities' names and pairs: gone from what the finder keeps. */
async function dropNamesAndPairs(db: Db, spaceId: string, ids: string[]): Promise<void> {
  await sql`
    delete from duplicate_names where space_id = ${spaceId} and entity_id = any(${ids}::uuid[])
  `.execute(db);
  await sql`
    delete from duplicate_pairs
     where space_id = ${spaceId}
       and (entity_a = any(${ids}::uuid[]) or entity_b = any(${ids}::uuid[]))
  `.execute(db);
}

/** Entities compared again after a failure, this time in full: their records go. */
export async function forgetFailures(db: Db, spaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    delete from duplicate_failures where space_id = ${spaceId} and entity_id = any(${ids}::uuid[])
  `.execute(db);
}

export interface NameRow {
  entity_id: string;
  name: string;
  /** Blocking keys as `keyHash` makes them. */
  keys: string[];
}

/** The entities' names become `rows` (those of entities not in `rows` go); none are added to a space being deleted. */
export async function replaceNames(
  db: Db,
  spaceId: string,
  ids: string[],
  rows: NameRow[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`
      delete from duplicate_names where space_id = ${spaceId} and entity_id = any(${ids}::uuid[])
    `.execute(trx);
    if (rows.length === 0) return;
    await sql`
      insert into duplicate_names (space_id, entity_id, name, keys)
      -- The name's beginning: the key's index takes at most a third of a page, and a
      -- row stored before the write doors' limits may hold a longer name.
      select ${spaceId}, r.entity_id, left(r.name, ${NAME_KEY_MAX}), r.keys
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
             as r(entity_id uuid, name text, keys bigint[])
       where ${liveSpace(spaceId)}
      on conflict do nothing
    `.execute(trx);
  });
}

/** Entities that are gone: their names, pairs and dismissals go too. */
export async function forgetEntities(db: Db, spaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await dropNamesAndPairs(trx, spaceId, ids);
    await sql`
      delete from duplicate_dismissals
       where space_id = ${spaceId}
         and (entity_a = any(${ids}::uuid[]) or entity_b = any(${ids}::uuid[]))
    `.execute(trx);
    await sql`
      delete from duplicate_failures where space_id = ${spaceId} and entity_id = any(${ids}::uuid[])
    `.execute(trx);
  });
}

/**
 * Names of entities with ids in (after, through] (through null: to the end)
 * that are not in `present` — entities deleted while no position was kept —
 * removed with their pairs. Returns their ids.
 */
export async function sweepRange(
  db: Db,
  spaceId: string,
  range: { after: string | null; through: string | null; present: string[] },
): Promise<string[]> {
  const result = await sql<{ entity_id: string }>`
    delete from duplicate_names n
     where n.space_id = ${spaceId}
       and (${range.after}::uuid is null or n.entity_id > ${range.after}::uuid)
       and (${range.through}::uuid is null or n.entity_id <= ${range.through}::uuid)
       and not (n.entity_id = any(${range.present}::uuid[]))
    returning n.entity_id
  `.execute(db);
  const gone = [...new Set(result.rows.map((row) => row.entity_id))];
  if (gone.length > 0) await forgetEntities(db, spaceId, gone);
  return gone;
}

/**
 * Dismissals a rename after them undoes: an entity named otherwise than its
 * dismissal says, by a change later than the dismissal (`seq`).
 */
export async function forgetRenamedDismissals(
  db: Db,
  spaceId: string,
  renames: { id: string; name: string; seq: number }[],
): Promise<void> {
  if (renames.length === 0) return;
  await sql`
    delete from duplicate_dismissals d
     using jsonb_to_recordset(${JSON.stringify(renames)}::jsonb) as r(id uuid, name text, seq bigint)
     where d.space_id = ${spaceId} and r.seq > d.dismissed_seq
       and ((d.entity_a = r.id and d.name_a <> r.name) or (d.entity_b = r.id and d.name_b <> r.name))
  `.execute(db);
}

// ---------------------------------------------------------------- blocking and signals

export interface Probe {
  id: string;
  /** Its probe keys, as `keyHash` makes them. */
  probe: string[];
}

export interface CandidateRow {
  source: string;
  other: string;
  name: string;
  type: string;
  aliases: string[];
}

/**
 * Holders of one key a probe reads: a key held by more names (a common word,
 * `p:harbor` at 100k entities holds ~1,000) gives that many of them, so a
 * probe's work stays bounded as the space grows; a close name shares its
 * rarer keys (its halves, its whole form) and is found through those.
 */
export const HOLDERS_PER_KEY = 100;

/**
 * For each probe: the entities whose names are stored under its keys (at
 * most `perProbe`, those sharing the most keys first, at most
 * HOLDERS_PER_KEY read per key), and those it is paired with now (to score
 * again or drop) — each with its current name, type and aliases. Entities
 * gone meanwhile drop out by the join. The names' lookup names no space: the
 * keys' hashes hold it, and a condition on it would let a planner without
 * statistics intersect the key's few rows with every row of the space.
 */
export async function candidatesOf(
  db: Db,
  spaceId: string,
  probes: Probe[],
  perProbe: number,
): Promise<CandidateRow[]> {
  if (probes.length === 0) return [];
  const result = await sql<CandidateRow>`
    with d as (
      select * from jsonb_to_recordset(${JSON.stringify(probes)}::jsonb) as x(id uuid, probe bigint[])
    ),
    -- The candidates first, then one entity lookup each: joined in one step, the
    -- planner read the whole space's entities once per probe (a hash join).
    c as materialized (
      select d.id as source, c.entity_id
        from d
        cross join lateral (
          -- The keys' hashes hold the space (a block is one space's); the lookup below keeps it.
          -- Those sharing the most keys first: a crowded block cannot crowd out a close name.
          (select h.entity_id
             from unnest(d.probe) k(key)
             cross join lateral (select n.entity_id from duplicate_names n
                                  where n.keys @> array[k.key] and n.entity_id <> d.id
                                  limit ${HOLDERS_PER_KEY}) h
            group by h.entity_id
            order by count(*) desc, h.entity_id
            limit ${perProbe})
          union
          select p.entity_b from duplicate_pairs p where p.space_id = ${spaceId} and p.entity_a = d.id
          union
          select p.entity_a from duplicate_pairs p where p.space_id = ${spaceId} and p.entity_b = d.id
        ) c(entity_id)
    )
    select c.source, e.id as other, e.name, e.type, e.aliases
      from c
      cross join lateral (select e.id, e.name, e.type, e.aliases from entities e
                           where e.space_id = ${spaceId} and e.id = c.entity_id limit 1) e
  `.execute(db);
  return result.rows;
}

/** Entities a name about to be created may equal but for case, spacing and punctuation, read at most. */
const SAME_PER_NAME = 5;

/**
 * For a create's answer (likely-duplicates.ts): for each probe (a name about
 * to be created, by its position), the entities whose names share a blocking
 * key with it, at most `perProbe` each, in no order — the finder's
 * `candidatesOf` without its ranking and its pairs, which a new name has none
 * of — and, `same`, those whose name or an alias has its key (`name_key`,
 * migration 034: equal but for case, spacing and punctuation), read from the
 * entities themselves, so one written a moment before, which the finder has
 * not seen yet, is among them. One statement, planned once: every create
 * asks it.
 */
export async function likelyNames(
  db: Db,
  spaceId: string,
  probes: { ord: number; name: string; probe: string[] }[],
  perProbe: number,
): Promise<(Omit<CandidateRow, 'source'> & { ord: number; same: boolean })[]> {
  if (probes.length === 0) return [];
  const result = await sql<Omit<CandidateRow, 'source'> & { ord: number; same: boolean }>`
    ${planOnce} with d as (
      select x.ord, x.probe, name_key(x.name) as key
        from jsonb_to_recordset(${JSON.stringify(probes)}::jsonb) as x(ord int, name text, probe bigint[])
    ),
    -- The names first, then one entity lookup each: a join order the planner
    -- cannot turn into a probe of the names per entity of the space.
    c as materialized (
      select d.ord, c.entity_id, false as same
        from d
        cross join lateral (select n.entity_id from duplicate_names n
                             where n.keys && d.probe limit ${perProbe}) c
      union all
      select d.ord, s.id, true
        from d
        cross join lateral (
          (select e.id from entities e
            where e.space_id = ${spaceId} and name_key(e.name) = d.key
            limit ${SAME_PER_NAME})
          union
          (select e.id from entities e
            where e.aliases <> '{}'
              and alias_keys(e.space_id, e.aliases) @> array[${spaceId}::uuid::text || ' ' || d.key]
              and e.space_id = ${spaceId}
            limit ${SAME_PER_NAME})
        ) s
       where d.key <> ''
    )
    select c.ord, c.same, e.id as other, e.name, e.type, e.aliases
      from c
      cross join lateral (select e.id, e.name, e.type, e.aliases from entities e
                           where e.space_id = ${spaceId} and e.id = c.entity_id limit 1) e
  `.execute(db);
  return result.rows;
}

/**
 * For each key (`keyHash` of a word's `p:` key, which holds the space): how
 * many names of the space start or end with that word (counted up to 10).
 */
export async function partHolders(db: Db, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const result = await sql<{ key: string; holders: number }>`
    select k.key::text as key,
           (select count(*) from (
              select 1 from duplicate_names n where n.keys @> array[k.key] limit 10) x)::int as holders
      from unnest(${keys}::bigint[]) as k(key)
  `.execute(db);
  return new Map(result.rows.map((row) => [row.key, row.holders]));
}

export interface SignalRow {
  a: string;
  b: string;
  neighbours: number;
  observations: number;
}

/** An entity's first observations compared for "shared observations" (the lookup's bound). */
const OBSERVATIONS_COMPARED = 1_000;

/**
 * For each pair: the entities related to both (either direction), and the
 * observations of one equal to one of the other's after lower-casing and
 * turning every run of punctuation and spaces into one space.
 */
export async function pairSignals(
  db: Db,
  spaceId: string,
  pairs: { a: string; b: string }[],
): Promise<SignalRow[]> {
  if (pairs.length === 0) return [];
  const result = await sql<SignalRow>`
    with p as (
      select a, b from jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) as x(a uuid, b uuid)
    ), ids as (
      select a as id from p union select b from p
    ),
    -- Each entity's rows through its own index lookups: with "in (select …)" the
    -- planner read the space's relations and observations whole at every step.
    nb as materialized (
      select i.id, r.n
        from ids i
        cross join lateral (
          select r.to_id as n from relations r where r.space_id = ${spaceId} and r.from_id = i.id
          union
          select r.from_id from relations r where r.space_id = ${spaceId} and r.to_id = i.id
        ) r
    ), ob as materialized (
      select distinct i.id,
             md5(btrim(regexp_replace(lower(o.content), '[^[:alnum:]]+', ' ', 'g'))) as h
        from ids i
        join lateral (select o.content from observations o
                       where o.space_id = ${spaceId} and o.entity_id = i.id
                       order by o.position limit ${OBSERVATIONS_COMPARED}) o on true
    )
    select p.a, p.b,
           (select count(distinct x.n) from nb x join nb y on y.n = x.n
             where x.id = p.a and y.id = p.b and x.n <> p.b and y.n <> p.a)::int as neighbours,
           (select count(*) from ob x join ob y on y.h = x.h
             where x.id = p.a and y.id = p.b and x.h <> md5(''))::int as observations
      from p
  `.execute(db);
  return result.rows;
}

export interface PairRow {
  a: string;
  b: string;
  score: number;
  reasons: string[];
}

/**
 * The pairs of the entities `ids` become `pairs`: those scored are written,
 * those of these entities not among them go.
 */
export async function replacePairs(
  db: Db,
  spaceId: string,
  ids: string[],
  pairs: PairRow[],
): Promise<void> {
  const kept = JSON.stringify(pairs);
  await db.transaction().execute(async (trx) => {
    await sql`
      delete from duplicate_pairs p
       where p.space_id = ${spaceId}
         and (p.entity_a = any(${ids}::uuid[]) or p.entity_b = any(${ids}::uuid[]))
         and not exists (
           select 1 from jsonb_to_recordset(${kept}::jsonb) as k(a uuid, b uuid)
            where k.a = p.entity_a and k.b = p.entity_b)
    `.execute(trx);
    if (pairs.length === 0) return;
    await sql`
      insert into duplicate_pairs as p (space_id, entity_a, entity_b, score, reasons)
      select ${spaceId}, k.a, k.b, k.score, k.reasons
        from jsonb_to_recordset(${kept}::jsonb) as k(a uuid, b uuid, score real, reasons text[])
       where ${liveSpace(spaceId)}
      on conflict (space_id, entity_a, entity_b) do update
         set score = excluded.score, reasons = excluded.reasons, updated_at = now()
       where (p.score, p.reasons) is distinct from (excluded.score, excluded.reasons)
    `.execute(trx);
  });
}

// ---------------------------------------------------------------- reads and dismissals

export interface CandidatePairRow {
  entity_a: string;
  entity_b: string;
  score: number;
  reasons: string[];
  name_a: string;
  type_a: string;
  observations_a: number;
  relations_a: number;
  name_b: string;
  type_b: string;
  observations_b: number;
  relations_b: number;
}

/**
 * One page of the space's candidates, best first (then by the pair's ids),
 * after `after`: pairs whose entities are both there and that no dismissal
 * holds by their present names.
 */
export async function listPairs(
  db: Db,
  spaceId: string,
  page: {
    after?: { score: number; a: string; b: string } | undefined;
    limit: number;
    /** Only the pairs this entity is in. */
    entityId?: string | undefined;
  },
): Promise<CandidatePairRow[]> {
  const after = page.after;
  const result = await sql<CandidatePairRow>`
    select p.entity_a, p.entity_b, p.score::float8 as score, p.reasons,
           ea.name as name_a, ea.type as type_a, ea.observations_count as observations_a,
           coalesce(da.degree, 0) as relations_a,
           eb.name as name_b, eb.type as type_b, eb.observations_count as observations_b,
           coalesce(db.degree, 0) as relations_b
      from duplicate_pairs p
      join entities ea on ea.space_id = p.space_id and ea.id = p.entity_a
      join entities eb on eb.space_id = p.space_id and eb.id = p.entity_b
      left join entity_degrees da on da.space_id = p.space_id and da.entity_id = p.entity_a
      left join entity_degrees db on db.space_id = p.space_id and db.entity_id = p.entity_b
     where p.space_id = ${spaceId}
       ${
         after
           ? sql`and p.score <= ${after.score}::real
                 and (p.score < ${after.score}::real
                      or (p.entity_a, p.entity_b) > (${after.a}::uuid, ${after.b}::uuid))`
           : sql``
       }
       ${page.entityId ? sql`and ${page.entityId}::uuid in (p.entity_a, p.entity_b)` : sql``}
       and not exists (
         select 1 from duplicate_dismissals d
          where d.space_id = p.space_id and d.entity_a = p.entity_a and d.entity_b = p.entity_b
            and d.name_a = ea.name and d.name_b = eb.name)
     order by p.score desc, p.entity_a, p.entity_b
     limit ${page.limit}
  `.execute(db);
  return result.rows;
}

/** Entities of the space by id, with their names. */
export async function namesOf(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<{ id: string; name: string }[]> {
  const result = await sql<{ id: string; name: string }>`
    select id, name from entities where space_id = ${spaceId} and id = any(${ids}::uuid[])
  `.execute(db);
  return result.rows;
}

/**
 * Holds the pair (`a` < `b`) as not one thing, by both entities' present
 * names and the account's present seq; false when either entity is not in
 * the space.
 */
export async function dismissPair(
  db: Db,
  accountId: string,
  spaceId: string,
  a: string,
  b: string,
): Promise<boolean> {
  const result = await sql<{ entity_a: string }>`
    insert into duplicate_dismissals as d
           (space_id, entity_a, entity_b, name_a, name_b, dismissed_seq)
    select ea.space_id, ea.id, eb.id, ea.name, eb.name,
           (select event_seq from accounts where id = ${accountId})
      from entities ea
      join entities eb on eb.space_id = ea.space_id and eb.id = ${b}::uuid
     where ea.space_id = ${spaceId} and ea.id = ${a}::uuid
    on conflict (space_id, entity_a, entity_b) do update
       set name_a = excluded.name_a, name_b = excluded.name_b,
           dismissed_seq = excluded.dismissed_seq, dismissed_at = now()
    returning d.entity_a
  `.execute(db);
  return result.rows.length > 0;
}

export async function undismissPair(db: Db, spaceId: string, a: string, b: string): Promise<void> {
  await sql`
    delete from duplicate_dismissals
     where space_id = ${spaceId} and entity_a = ${a}::uuid and entity_b = ${b}::uuid
  `.execute(db);
}
