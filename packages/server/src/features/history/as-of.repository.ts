import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { escapeLike } from '../../db/like.js';
import type { ObservationRow, RelationListFilter, RelationRow } from '../graph/index.js';

/**
 * The graph's rows as of a past seq (docs/history.md): the present with every
 * row changed after it replaced by its image before its earliest change after
 * it (history.repository's rows; absent when that change created it).
 */

/** An entity as of a seq: its own columns (observations come apart). */
export interface EntityAtRow {
  id: string;
  ordinal: number;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  aliases: string[];
  created_at: Date;
  updated_at: Date;
}

/** An observation as of a seq: every column, its times of validity included. */
export type ObservationAtRow = Required<ObservationRow>;

export type RelationAtRow = Required<RelationRow> & { ordinal: number };

// ── the horizon and times ────────────────────────────────────────────────────

/**
 * The CTEs `h` (each row changed after `seq`, with its image then), `e_at`,
 * `o_at` and `r_at` (the space's entities, observations and relations as of
 * `seq`), written with a trailing comma. Filters on the outer select reach
 * into both arms of each union, so the present's indexes still serve them.
 */
function asOfTables(spaceId: string, seq: number): RawBuilder<unknown> {
  return sql`
    h as (
      select distinct on (row_id) row_id, kind, before
        from (select row_id, kind, before, seq from graph_history
               where space_id = ${spaceId} and seq > ${seq}) changed
       order by row_id, seq
    ),
    e_at as (
      select e.id, e.ordinal::float8 as ordinal, e.name, e.type, e.metadata, e.created_at, e.updated_at,
             e.aliases
        from entities e
       where e.space_id = ${spaceId} and not exists (select 1 from h where h.row_id = e.id)
      union all
      select h.row_id, (h.before->>'ordinal')::float8, h.before->>'name', h.before->>'type',
             h.before->'metadata', (h.before->>'created_at')::timestamptz,
             (h.before->>'updated_at')::timestamptz,
             -- Images kept before migration 032 have no aliases.
             array(select json_array_elements_text(coalesce(h.before::json->'aliases', '[]')))
        from h where h.kind = 'e' and h.before is not null
    ),
    o_at as (
      select o.id, o.entity_id, o.content, o.metadata, o.position, o.created_at, o.valid_from, o.valid_to,
             o.terms
        from observations o
       where o.space_id = ${spaceId} and not exists (select 1 from h where h.row_id = o.id)
      union all
      select h.row_id, (h.before->>'entity_id')::uuid, h.before->>'content', h.before->'metadata',
             (h.before->>'position')::int, (h.before->>'created_at')::timestamptz,
             (h.before->>'valid_from')::timestamptz, (h.before->>'valid_to')::timestamptz,
             to_tsvector('english', h.before->>'content')
        from h where h.kind = 'o' and h.before is not null
    ),
    r_at as (
      select r.id, r.ordinal::float8 as ordinal, r.from_id, r.to_id, r.type, r.created_at, r.valid_from, r.valid_to
        from relations r
       where r.space_id = ${spaceId} and not exists (select 1 from h where h.row_id = r.id)
      union all
      select h.row_id, (h.before->>'ordinal')::float8, (h.before->>'from_id')::uuid,
             (h.before->>'to_id')::uuid, h.before->>'type', (h.before->>'created_at')::timestamptz,
             (h.before->>'valid_from')::timestamptz, (h.before->>'valid_to')::timestamptz
        from h where h.kind = 'r' and h.before is not null
    ),`;
}

/** How a read picks entities as of a seq (each bounded by `limit`, in creation order unless said). */
export type EntityPick =
  | { ids: string[] }
  | { names: string[] }
  | { query: string; types?: string[] | undefined }
  | { all: true; types?: string[] | undefined }
  | { bestConnected: true };

/** Entities as of `seq`, as `pick` chooses them, with their observation counts then. */
export async function entitiesAt(
  db: Db,
  spaceId: string,
  seq: number,
  pick: EntityPick,
  page: { limit: number; offset?: number },
): Promise<{ rows: (EntityAtRow & { observations_count: number })[]; total: number }> {
  const where = entityFilter(pick);
  const order =
    'bestConnected' in pick
      ? sql`(select count(*) from r_at where r_at.from_id = e.id or r_at.to_id = e.id) desc, e.ordinal`
      : 'query' in pick
        ? sql`case when lower(e.name) = lower(${pick.query}) then 0
                   when lower(e.name) like lower(${escapeLike(pick.query)}) || '%' then 1
                   when lower(e.name) like '%' || lower(${escapeLike(pick.query)}) || '%' then 2
                   else 3 end, e.ordinal desc`
        : 'all' in pick
          ? sql`e.ordinal desc`
          : sql`e.ordinal`;
  const result = await sql<EntityAtRow & { observations_count: number; total: number }>`
    with ${asOfTables(spaceId, seq)}
    picked as (select e.* from e_at e where ${where})
    select e.*, (select count(*) from o_at o where o.entity_id = e.id)::int as observations_count,
           (select count(*) from picked)::int as total
      from picked e
     order by ${order}
     limit ${page.limit} offset ${page.offset ?? 0}
  `.execute(db);
  return {
    rows: result.rows.map(({ total: _total, ...row }) => row),
    total: result.rows[0]?.total ?? 0,
  };
}

function entityFilter(pick: EntityPick): RawBuilder<unknown> {
  if ('ids' in pick) return sql`e.id = any(${pick.ids}::uuid[])`;
  if ('names' in pick) return sql`e.name = any(${pick.names}::text[])`;
  const types =
    'types' in pick && pick.types && pick.types.length > 0
      ? sql`e.type = any(${pick.types}::text[])`
      : sql`true`;
  if ('query' in pick) {
    const pattern = `%${escapeLike(pick.query.toLowerCase())}%`;
    return sql`${types} and (lower(e.name) like ${pattern} or lower(e.type) like ${pattern}
      or exists (select 1 from o_at o where o.entity_id = e.id and lower(o.content) like ${pattern}))`;
  }
  return types;
}

/** The observations of these entities as of `seq`, in their order, at most `limit`. */
export async function observationsAt(
  db: Db,
  spaceId: string,
  seq: number,
  entityIds: string[],
  limit: number,
): Promise<ObservationAtRow[]> {
  if (entityIds.length === 0) return [];
  const result = await sql<ObservationAtRow>`
    with ${asOfTables(spaceId, seq)}
    picked as (select 1)
    select o.id, o.entity_id, o.content, o.metadata, o.position, o.created_at, o.valid_from, o.valid_to
      from o_at o where o.entity_id = any(${entityIds}::uuid[])
     order by array_position(${entityIds}::uuid[], o.entity_id), o.position, o.created_at
     limit ${limit}
  `.execute(db);
  return result.rows;
}

/** Relations as of `seq` touching these entities (or among them only), with their ends' names then. */
export async function relationsAt(
  db: Db,
  spaceId: string,
  seq: number,
  entityIds: string[],
  options: { among?: boolean; fromOnly?: boolean; limit: number },
): Promise<(RelationAtRow & { from_name: string; to_name: string })[]> {
  if (entityIds.length === 0) return [];
  const touching = options.among
    ? sql`r.from_id = any(${entityIds}::uuid[]) and r.to_id = any(${entityIds}::uuid[])`
    : options.fromOnly
      ? sql`r.from_id = any(${entityIds}::uuid[])`
      : sql`(r.from_id = any(${entityIds}::uuid[]) or r.to_id = any(${entityIds}::uuid[]))`;
  const result = await sql<RelationAtRow & { from_name: string; to_name: string }>`
    with ${asOfTables(spaceId, seq)}
    picked as (select r.* from r_at r where ${touching})
    select r.*, f.name as from_name, t.name as to_name
      from picked r join e_at f on f.id = r.from_id join e_at t on t.id = r.to_id
     order by r.ordinal limit ${options.limit}
  `.execute(db);
  return result.rows;
}

/** An observation that shares a word with a question, as of a seq, with its entity then. */
export interface MatchAtRow {
  id: string;
  content: string;
  created_at: Date;
  valid_from: Date | null;
  valid_to: Date | null;
  entity_id: string;
  entity_name: string;
  entity_type: string;
  score: number;
}

/**
 * Observations as of `seq` that share a word (stemmed) with `question`, best
 * first by how densely they hold its words (`ts_rank_cd`), then newest.
 */
export async function observationsMatchingAt(
  db: Db,
  spaceId: string,
  seq: number,
  question: string,
  filter: { limit: number; types?: string[] | undefined; names?: string[] | undefined },
): Promise<MatchAtRow[]> {
  const types = filter.types?.length ? sql`and e.type = any(${filter.types}::text[])` : sql``;
  const names = filter.names?.length ? sql`and e.name = any(${filter.names}::text[])` : sql``;
  const result = await sql<MatchAtRow>`
    with ${asOfTables(spaceId, seq)}
    words as (select replace(plainto_tsquery('english', ${question})::text, '&', '|') as text),
    question as (select to_tsquery('english', text) as q from words where text <> '')
    select o.id, o.content, o.created_at, o.valid_from, o.valid_to, e.id as entity_id, e.name as entity_name,
           e.type as entity_type, ts_rank_cd(o.terms, question.q)::float8 as score
      from question, o_at o join e_at e on e.id = o.entity_id
     where o.terms @@ question.q ${types} ${names}
     order by score desc, o.created_at desc
     limit ${filter.limit}
  `.execute(db);
  return result.rows;
}

/** Relations as of `seq` with their ends then, newest first, as the relations list filters them. */
export async function relationListAt(
  db: Db,
  spaceId: string,
  seq: number,
  filter: RelationListFilter,
): Promise<{ rows: (RelationAtRow & EndsRow)[]; total: number }> {
  const types = filter.types?.length ? sql`and r.type = any(${filter.types}::text[])` : sql``;
  const touching = filter.entityId
    ? sql`and (r.from_id = ${filter.entityId} or r.to_id = ${filter.entityId})`
    : sql``;
  const pattern = filter.query ? `%${escapeLike(filter.query.toLowerCase())}%` : null;
  const matching = pattern
    ? sql`and (lower(r.type) like ${pattern} or lower(f.name) like ${pattern} or lower(t.name) like ${pattern})`
    : sql``;
  const result = await sql<RelationAtRow & EndsRow & { total: number }>`
    with ${asOfTables(spaceId, seq)}
    picked as (
      select r.*, f.name as from_name, f.type as from_type, t.name as to_name, t.type as to_type
        from r_at r join e_at f on f.id = r.from_id join e_at t on t.id = r.to_id
       where true ${types} ${touching} ${matching}
    )
    select p.*, (select count(*) from picked)::int as total from picked p
     order by p.ordinal desc limit ${filter.limit} offset ${filter.offset}
  `.execute(db);
  return {
    rows: result.rows.map(({ total: _total, ...row }) => row),
    total: result.rows[0]?.total ?? 0,
  };
}

interface EndsRow {
  from_name: string;
  from_type: string;
  to_name: string;
  to_type: string;
}
