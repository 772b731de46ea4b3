import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';
import { entityNamed } from './names.repository.js';
import type { TouchingRelationRow } from './relations.repository.js';
import { touchingGiven, walkFrom } from './walks.repository.js';

/**
 * A whole read answer in one statement (decision 017): the entities a page
 * picks, in its order, with the observations the answer's row budget allows
 * and the relations touching them. Read as three statements (the page, then
 * observations beside relations) it waited on two answers from the database;
 * on PGlite each is a message to its worker and back.
 */

export interface AnswerEntityRow {
  id: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  observations_count: number;
  /** Observations read for it; null when the row budget was spent before it. */
  take: number | null;
}

export interface AnswerObservationRow {
  entity_id: string;
  content: string;
  metadata: Record<string, unknown> | null;
}

export interface AnswerRows {
  entities: AnswerEntityRow[];
  observations: AnswerObservationRow[];
  relations: TouchingRelationRow[];
}

/**
 * Where an answer's entities come from: `page` selects `(id, ord)`, one row
 * per entity in answer order, reading the CTEs `with` defines (written with a
 * trailing comma); `total` is a column read beside the answer.
 */
export interface AnswerSource {
  with?: RawBuilder<unknown>;
  page: RawBuilder<unknown>;
  total?: RawBuilder<number>;
}

export interface AnswerBudget {
  /** Entities the answer may hold; a page may pick one more, to tell that it was cut. */
  entities: number;
  /** Observation rows the answer may hold (entities past it are read without any). */
  observationRows: number;
  /** Relations read at most. */
  relations: number;
}

/**
 * The answer for `source`. The row budget is the rule of `boundEntities`
 * (read-bounds.ts): entities are kept in order while their observations fit;
 * the first is always kept, with as many as fit. The caller then fits the
 * answer's bytes (`fitBytes`) as for any read.
 */
export async function readAnswer(
  db: Db,
  spaceId: string,
  source: AnswerSource,
  budget: AnswerBudget,
): Promise<AnswerRows & { total: number | null }> {
  const entities = hidden(sql<number>`${budget.entities}::int`);
  const observationRows = hidden(sql<number>`${budget.observationRows}::int`);
  const result = await sql<{
    total: number | null;
    entities: AnswerEntityRow[] | null;
    observations: AnswerObservationRow[] | null;
    relations: TouchingRelationRow[] | null;
  }>`
    ${planOnce} with ${source.with ?? sql``}
    page as (${source.page}),
    picked as materialized (
      select e.*, case when e.n > ${entities} then null
                       when e.n = 1 then least(e.observations_count, ${observationRows})
                       when e.upto <= ${observationRows} then e.observations_count end as take
        from (select e.id, e.name, e.type, e.metadata, e.observations_count, p.ord,
                     row_number() over w as n, sum(e.observations_count) over w as upto
                from page p
                cross join lateral (select * from entities e
                                     where e.space_id = ${spaceId} and e.id = p.id limit 1) e
              window w as (order by p.ord)) e
    ),
    given as (select id from picked where n <= ${entities}),
    observed as (
      select o.entity_id, o.content, o.metadata, p.ord, o.position, o.created_at
        from (select * from picked where take > 0) p
        cross join lateral (select * from observations o
                             where o.space_id = ${spaceId} and o.entity_id = p.id
                             order by o.position, o.created_at
                             limit p.take) o
    ),
    touching as (${touchingGiven(spaceId, { limit: budget.relations })})
    select ${source.total ?? sql`null`} as total,
           (select json_agg(json_build_object('id', id, 'name', name, 'type', type,
                   'metadata', metadata, 'observations_count', observations_count, 'take', take)
                   order by ord) from picked) as entities,
           (select json_agg(json_build_object('entity_id', entity_id, 'content', content,
                   'metadata', metadata) order by ord, position, created_at) from observed) as observations,
           (select json_agg(json_build_object('id', id, 'from_id', from_id, 'to_id', to_id,
                   'from_name', from_name, 'to_name', to_name, 'type', type)
                   order by ordinal) from touching) as relations
  `.execute(db);
  const row = result.rows[0]!;
  return {
    total: row.total,
    entities: row.entities ?? [],
    observations: row.observations ?? [],
    relations: row.relations ?? [],
  };
}

/**
 * The answer for the named entities (unknown names skipped), in the order
 * named, at most `limit`: each entity once, where it was first named (by its
 * name or an alias).
 */
export async function namedAnswer(
  db: Db,
  spaceId: string,
  names: string[],
  limit: number,
  budget: AnswerBudget,
): Promise<AnswerRows> {
  return readAnswer(
    db,
    spaceId,
    {
      page: sql`select e.id, min(g.ord) as ord
                  from unnest(${hidden(sql`${[...new Set(names)]}::text[]`)}) with ordinality as g(name, ord)
                  cross join lateral ${entityNamed(spaceId, sql`g.name`, sql`e.id`)} e
                 group by e.id
                 order by ord
                 limit ${hidden(sql`${limit}::int`)}`,
    },
    budget,
  );
}

/**
 * The answer for the entity named `name` and what `walkFrom` reaches from it,
 * nearest first; no entities when the name is unknown.
 */
export async function neighbourhoodAnswer(
  db: Db,
  spaceId: string,
  name: string,
  walk: { depth: number; limit: number },
  budget: AnswerBudget,
): Promise<AnswerRows> {
  const root = sql`array(select id from ${entityNamed(spaceId, hidden(sql`${name}::text`), sql`e.id`)} e)`;
  return readAnswer(db, spaceId, { page: walkFrom(spaceId, root, walk) }, budget);
}
