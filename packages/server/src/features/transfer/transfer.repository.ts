import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden } from '../../db/prepared.js';
import type { EntityRow, ObservationRow, RelationRow } from '../graph/index.js';

/**
 * The whole graph for an export, in keyset pages: each statement reads a
 * bounded number of rows (and bytes) after the last one read, by index, so
 * an export is many short statements that other requests run between — on
 * PGlite, which runs one statement at a time, above all. Every query is
 * scoped by account.
 *
 * Each page comes back as one JSON text (`json_agg(…)::text`), parsed here:
 * on PGlite, handing 2,000 rows one by one from its worker thread (a parse
 * there, a copy of every row to the main thread) cost three times the
 * statement itself (2,000 observations: 25 ms against 9 for the one text).
 * Dates come as JSON's ISO text with microseconds, read as Dates to the
 * millisecond as the drivers read them (as `storedObservations` does).
 *
 * Unlike the hot reads, these are planned on every page, not once per
 * session (`planOnce`): a plan kept from when an account's tables were small
 * scanned the whole observations table per entity on PostgreSQL once they
 * had grown (an export of 60,000 observations went from 3 s to past 30 s).
 */

/** A page the query built as one JSON array of row tuples (`json_agg`: null when empty). */
const rowsOf = <Stored>(page: string | null | undefined): Stored[] =>
  page ? (JSON.parse(page) as Stored[]) : [];

/** An entity with its place in creation order: the key of the next page. */
export type ExportEntityRow = EntityRow & { ordinal: string };

/**
 * The entities after `afterOrdinal` in creation order: at most `limit` rows
 * and, past the first, no more than `maxBytes` of names, types and metadata.
 */
export async function entitiesAfter(
  db: Db,
  spaceId: string,
  afterOrdinal: string,
  bounds: { limit: number; maxBytes: number },
): Promise<ExportEntityRow[]> {
  // The running sum cuts the page once it holds maxBytes: the rows past that
  // are read by the next page.
  const result = await sql<{ page: string | null }>`
    select json_agg(json_build_array(e.id, e.name, e.type, e.metadata,
                                                 e.observations_count, e.created_at,
                                                 e.updated_at, e.ordinal::text, e.aliases)
                                order by e.ordinal)::text as page
      from (select e.*, sum(e.bytes) over (order by e.ordinal) - e.bytes as before
              from (select e.*, octet_length(e.name) + octet_length(e.type)
                                + octet_length(e.metadata::text)
                                + octet_length(array_to_string(e.aliases, '')) as bytes
                      from entities e
                     where e.space_id = ${spaceId} and e.ordinal > ${afterOrdinal}::bigint
                     order by e.ordinal
                     limit ${sql.lit(bounds.limit)}) e) e
     where e.before < ${sql.lit(bounds.maxBytes)}
  `.execute(db);
  type Stored = [
    string,
    string,
    string,
    Record<string, unknown>,
    number,
    string,
    string,
    string,
    string[],
  ];
  return rowsOf<Stored>(result.rows[0]?.page).map(
    ([id, name, type, metadata, count, createdAt, updatedAt, ordinal, aliases]) => ({
      id,
      name,
      type,
      metadata,
      aliases,
      observations_count: count,
      created_at: new Date(createdAt),
      updated_at: new Date(updatedAt),
      ordinal,
    }),
  );
}

/** Where a read of one entity's observations goes on: after this one, in their order. */
export interface ObservationKey {
  position: number;
  /** `created_at` as the database wrote it: exact to the microsecond, unlike a Date. */
  createdAt: string;
  id: string;
}

/** Before every observation. */
export const FIRST_OBSERVATION: ObservationKey = {
  position: -2_147_483_648,
  createdAt: '-infinity',
  id: '00000000-0000-0000-0000-000000000000',
};

export type ExportObservationRow = Omit<ObservationRow, 'entity_id'> & {
  /** Which of the given entities (1-based). */
  ord: number;
  /** The row's key, to go on after it. */
  key: ObservationKey;
};

/**
 * Observations of the given entities, each entity's first `take` in their
 * order (position, then creation) — the first entity's after `from` —
 * entities in the order given, cut once they hold `maxBytes` of text and
 * metadata. `cut` says the answer stopped there: the last row's entity goes on
 * after it. One index scan per entity, never more rows than the takes add up to.
 */
export async function observationsOf(
  db: Db,
  spaceId: string,
  wanted: { id: string; take: number }[],
  from: ObservationKey,
  maxBytes: number,
): Promise<{ rows: ExportObservationRow[]; cut: boolean }> {
  // Only the first entity goes on from `from`; the others start at their
  // first observation. The bound is per entity, so each scan starts at it.
  const result = await sql<{ page: string | null; read: number; sent: number }>`
    select json_agg(json_build_array(o.ord, o.id, o.content, o.metadata,
                                                 o.position, o.created_at, o.valid_from, o.valid_to)
                                order by o.ord, o.position, o.created_at, o.id)::text as page,
                       max(o.read)::int as read, count(*)::int as sent
      from (select o.*, sum(o.bytes) over (order by o.ord, o.position, o.created_at, o.id) - o.bytes as before,
                   count(*) over () as read
              from (select o.*, e.ord,
                           octet_length(o.content) + coalesce(octet_length(o.metadata::text), 0) as bytes
                      from (select e.id, e.take, e.ord,
                                   case when e.ord = 1 then ${from.position}::int
                                        else ${FIRST_OBSERVATION.position}::int end as position,
                                   case when e.ord = 1 then ${from.createdAt}::timestamptz
                                        else '-infinity'::timestamptz end as created_at,
                                   case when e.ord = 1 then ${from.id}::uuid
                                        else ${FIRST_OBSERVATION.id}::uuid end as after_id
                              from unnest(${hidden(sql`${wanted.map((item) => item.id)}::uuid[]`)},
                                          ${hidden(sql`${wanted.map((item) => item.take)}::int[]`)})
                                   with ordinality as e(id, take, ord)) e
                     cross join lateral (
                       select * from observations o
                        where o.space_id = ${spaceId} and o.entity_id = e.id
                          and o.position >= e.position
                          and (o.position, o.created_at, o.id) > (e.position, e.created_at, e.after_id)
                        order by o.position, o.created_at, o.id
                        limit e.take) o) o) o
     where o.before < ${sql.lit(maxBytes)}
  `.execute(db);
  const answer = result.rows[0];
  if (!answer?.page) return { rows: [], cut: false };
  type Stored = [
    number,
    string,
    string,
    Record<string, unknown> | null,
    number,
    string,
    string | null,
    string | null,
  ];
  const rows = rowsOf<Stored>(answer.page).map(
    ([ord, id, content, metadata, position, createdAt, validFrom, validTo]) => ({
      ord,
      id,
      content,
      metadata,
      position,
      created_at: new Date(createdAt),
      valid_from: validFrom === null ? null : new Date(validFrom),
      valid_to: validTo === null ? null : new Date(validTo),
      key: { position, createdAt, id },
    }),
  );
  return { rows, cut: answer.sent < answer.read };
}

export type ExportRelationRow = Required<RelationRow> & {
  ordinal: string;
  /** The ends' names when asked for (null when an end is gone: the relation is left out). */
  from_name: string | null;
  to_name: string | null;
};

/**
 * The relations after `afterOrdinal` in creation order, at most `limit`,
 * with their ends' names when asked (one primary-key probe per end).
 */
export async function relationsAfter(
  db: Db,
  spaceId: string,
  afterOrdinal: string,
  options: { limit: number; names: boolean },
): Promise<ExportRelationRow[]> {
  const nameOf = (end: 'from_id' | 'to_id') =>
    options.names
      ? sql`(select name from entities
              where space_id = ${spaceId} and id = ${sql.ref(`r.${end}`)})`
      : sql`null::text`;
  const result = await sql<{ page: string | null }>`
    select json_agg(json_build_array(r.id, r.from_id, r.to_id, r.type, r.created_at,
                                                 r.ordinal::text, ${nameOf('from_id')},
                                                 ${nameOf('to_id')}, r.valid_from, r.valid_to)
                                order by r.ordinal)::text as page
      from (select * from relations r
             where r.space_id = ${spaceId} and r.ordinal > ${afterOrdinal}::bigint
             order by r.ordinal
             limit ${sql.lit(options.limit)}) r
  `.execute(db);
  type Stored = [
    string,
    string,
    string,
    string,
    string,
    string,
    string | null,
    string | null,
    string | null,
    string | null,
  ];
  return rowsOf<Stored>(result.rows[0]?.page).map(
    ([id, fromId, toId, type, createdAt, ordinal, fromName, toName, validFrom, validTo]) => ({
      id,
      from_id: fromId,
      to_id: toId,
      type,
      created_at: new Date(createdAt),
      valid_from: validFrom === null ? null : new Date(validFrom),
      valid_to: validTo === null ? null : new Date(validTo),
      ordinal,
      from_name: fromName,
      to_name: toName,
    }),
  );
}

/**
 * Which of `names` an entity of the space has as its name or an alias (an
 * import's relation targets that are not among its own notes).
 */
export async function namesPresent(db: Db, spaceId: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const result = await sql<{ name: string }>`
    select n.name from unnest(${hidden(sql`${names}::text[]`)}) as n(name)
     where exists (select 1 from entities e
                    where e.space_id = ${spaceId}
                      and (e.name = n.name or n.name = any(e.aliases)))
  `.execute(db);
  return new Set(result.rows.map((row) => row.name));
}

/** The account's entities now (the count its plan's entity limit is checked against). */
export async function accountEntityCount(db: Db, accountId: string): Promise<number> {
  const result = await sql<{ count: string | number }>`
    select entity_count as count from accounts where id = ${accountId}
  `.execute(db);
  return Number(result.rows[0]?.count ?? 0);
}
