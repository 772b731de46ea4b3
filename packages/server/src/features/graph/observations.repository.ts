import { OBSERVATION_PREVIEW_CHARS } from '@engram/shared';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';
import { runStaged, type Staging } from './changes.repository.js';
import { entityNamed } from './names.repository.js';

/** Observations of entities, in their order. Every query is scoped by account. */

/** An observation's columns, as every read and write here returns them. */
const OBSERVATION_COLUMNS = [
  'id',
  'entity_id',
  'content',
  'metadata',
  'position',
  'created_at',
  'valid_from',
  'valid_to',
] as const;

export interface ObservationRow {
  id: string;
  entity_id: string;
  content: string;
  metadata: Record<string, unknown> | null;
  position: number;
  created_at: Date;
  /** When the fact held, as its writer said (absent where a read does not carry it). */
  valid_from?: Date | null;
  valid_to?: Date | null;
}

export async function listObservations(
  db: Db,
  spaceId: string,
  entityIds: string[],
): Promise<ObservationRow[]> {
  if (entityIds.length === 0) return [];
  return db
    .selectFrom('observations')
    .select(OBSERVATION_COLUMNS)
    .where('space_id', '=', spaceId)
    .where('entity_id', '=', sql<string>`any(${entityIds}::uuid[])`)
    .orderBy('entity_id')
    .orderBy('position')
    .orderBy('created_at')
    .execute();
}

/**
 * Each entity's first `take` observations (in their order), entities in the
 * order given: one index scan per entity, never more rows than asked for,
 * planned once (the lists are `hidden`).
 */
export async function takeObservations(
  db: Db,
  spaceId: string,
  wanted: { id: string; take: number }[],
): Promise<ObservationRow[]> {
  const asked = wanted.filter((item) => item.take > 0);
  if (asked.length === 0) return [];
  const result = await sql<ObservationRow>`
    ${planOnce} select o.id, o.entity_id, o.content, o.metadata, o.position, o.created_at,
           o.valid_from, o.valid_to
      from unnest(${hidden(sql`${asked.map((item) => item.id)}::uuid[]`)},
                  ${hidden(sql`${asked.map((item) => item.take)}::int[]`)})
           with ordinality as e(id, take, ord)
      cross join lateral (
        select * from observations
         where space_id = ${spaceId} and entity_id = e.id
         order by position, created_at
         limit e.take
      ) o
     order by e.ord, o.position, o.created_at
  `.execute(db);
  return result.rows;
}

const observationColumns = sql.join(OBSERVATION_COLUMNS.map((column) => sql.ref(column)));

/**
 * An observation to append to an entity, named by its id or, for
 * name-addressed calls, by its name (resolved in the appending statement, so
 * a write by name holds the account lock one statement less).
 */
export interface ObservationInsert {
  entity: string;
  content: string;
  metadata?: Record<string, unknown> | undefined;
  validFrom?: string | undefined;
  validTo?: string | undefined;
}

/** An entity's id, name and observation count after a write (for the per-entity limit). */
export interface ObservationCount {
  id: string;
  name: string;
  observations_count: number;
}

/**
 * The end of an insert of observations (its CTE `inserted`): their entities'
 * counts raised and touched, and each row with its entity's name and count.
 * `keyed`: each row also carries the key it was given under (`entity_key`,
 * from the CTE `fresh`, one row per entity and text), for a by-name call
 * whose key may be an alias.
 */
const countedInserted = (spaceId: string, keyed = false) => sql`
    counted as (
      update entities e set observations_count = e.observations_count + c.count,
                            updated_at = clock_timestamp()
        from (select entity_id, count(*)::int as count from inserted group by entity_id) c
       where e.space_id = ${spaceId} and e.id = c.entity_id
      returning e.id, e.name, e.observations_count
    )
    select i.*, c.name as entity_name, c.observations_count as entity_count,
           ${keyed ? sql`f.entity::text` : sql`null::text`} as entity_key, null as staged
      from inserted i join counted c on c.id = i.entity_id
      ${keyed ? sql`join fresh f on f.entity_id = i.entity_id and f.content = i.content` : sql``}`;
/**
 * Appends observations to existing entities in one statement: each after its
 * entity's last one, skipping texts the entity already has, raising the
 * entities' counts and marking them changed. Entities are named by id or by
 * name (`by`); when a key names no entity of the space the statement fails
 * (changes.repository's MISSING_ENTITIES) and adds nothing. With `staging`,
 * the statement stages its `observation_added` events, one per entity
 * (migration 030). Returns what was added, and the counts of the entities
 * that grew.
 */
export async function appendObservations(
  db: Db,
  spaceId: string,
  items: ObservationInsert[],
  by: 'id' | 'name' = 'id',
  staging?: Staging,
): Promise<Added> {
  if (items.length === 0) return { added: [], counts: [], byKey: new Map() };
  const batch = JSON.stringify(
    items.map((item) => ({
      entity: item.entity,
      content: item.content,
      metadata: item.metadata,
      valid_from: item.validFrom ?? null,
      valid_to: item.validTo ?? null,
    })),
  );
  // One row per observation added, each carrying its entity's new count, then
  // the one row of stage_events (the events staged, or the missing keys refused).
  const rows = await runStaged(
    db,
    sql<AddedRow>`
    ${planOnce} with given as (
      select g.*, e.id as entity_id from rows from (
        -- Metadata as json, not jsonb: its keys stay in the order given (migration 013).
        json_to_recordset(${batch}::json)
          as (entity ${sql.raw(by === 'id' ? 'uuid' : 'text')}, content text, metadata json,
              valid_from timestamptz, valid_to timestamptz)
      ) with ordinality as g(entity, content, metadata, valid_from, valid_to, ord)
      left join lateral ${
        by === 'name'
          ? entityNamed(spaceId, sql`g.entity`, sql`e.id`)
          : sql`(select e.id from entities e where e.space_id = ${spaceId} and e.id = g.entity limit 1)`
      } e on true
    ),
    fresh as (
      select g.*, row_number() over (partition by g.entity_id order by g.ord) as nth
        from ${
          by === 'name'
            ? // A name and an alias of one entity may give the same text: it is added once.
              sql`(select g.*, row_number() over (partition by g.entity_id, observation_key(g.content)
                                                  order by g.ord) as copy
                     from given g) g`
            : sql`given g`
        }
        -- A probe of the entity's observations per given text. As NOT EXISTS
        -- the planner, guessing 100 given rows, could hash the account's every
        -- observation instead (14 ms at 10k entities); LIMIT keeps it a probe.
        left join lateral (select true as seen from observations o
                            where o.space_id = ${spaceId} and o.entity_id = g.entity_id
                              and observation_key(o.content) = observation_key(g.content)
                            limit 1) known on true
       where g.entity_id is not null and known.seen is null ${by === 'name' ? sql`and g.copy = 1` : sql``}
    ),
    inserted as (
      insert into observations (space_id, entity_id, content, metadata, position, valid_from, valid_to)
      select ${spaceId}, f.entity_id, f.content, f.metadata,
             (f.nth + coalesce((select max(o.position) from observations o
                                 where o.space_id = ${spaceId} and o.entity_id = f.entity_id), -1))::int,
             f.valid_from, f.valid_to
        from fresh f
       order by f.ord
      returning ${observationColumns}
    ),
    ${countedInserted(spaceId, by === 'name')}
    union all
    select null, null, null, null, null, null, null, null, null, null, null, ${stageAdded(
      staging,
      sql`(select coalesce(jsonb_agg(distinct g.entity::text), '[]') from given g where g.entity_id is null)`,
    )}
    order by entity_id, position
  `,
    staging,
  );
  return readAdded(rows);
}

/** A row of an observation-adding statement: an observation added, or (`staged` set) stage_events' own. */
type AddedRow = ObservationRow & {
  entity_name: string;
  entity_count: number;
  entity_key: string | null;
  staged: boolean | null;
};

/** What a statement added: the rows, the counts of the entities that grew, and (by name) the rows by the key each was given under. */
export interface Added {
  added: ObservationRow[];
  counts: ObservationCount[];
  byKey: Map<string, ObservationRow[]>;
}

function readAdded(rows: AddedRow[]): Added {
  const counts = new Map<string, ObservationCount>();
  const added: ObservationRow[] = [];
  const byKey = new Map<string, ObservationRow[]>();
  for (const { entity_name, entity_count, entity_key, staged, ...row } of rows) {
    if (staged !== null) continue;
    counts.set(row.entity_id, {
      id: row.entity_id,
      name: entity_name,
      observations_count: entity_count,
    });
    added.push(row);
    if (entity_key === null) continue;
    const keyed = byKey.get(entity_key);
    if (keyed) keyed.push(row);
    else byKey.set(entity_key, [row]);
  }
  return { added, counts: [...counts.values()], byKey };
}

/**
 * stage_events (migration 030) for the observations a statement inserted (its
 * `inserted` and `counted` parts): one `observation_added` event per entity,
 * each observation cut to a preview of OBSERVATION_PREVIEW_CHARS characters
 * (code points, as PostgreSQL counts them) with its whole length when cut, so
 * the change log never holds unbounded copies of the text. `missing`: the
 * keys to refuse, as a jsonb array.
 */
function stageAdded(
  staging: Staging | undefined,
  missing: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const limit = sql.lit(OBSERVATION_PREVIEW_CHARS);
  return sql`stage_events(
    ${staging?.slot ?? null}::int,
    (select coalesce(jsonb_agg(jsonb_build_object(
              'type', 'observation_added',
              'payload', jsonb_build_object('entityId', p.entity_id, 'observations', p.observations))
            order by p.entity_id), '[]')
       from (select i.entity_id,
                    jsonb_agg(jsonb_build_object('id', i.id, 'content', left(i.content, ${limit}))
                                || case when char_length(i.content) > ${limit}
                                        then jsonb_build_object('length', char_length(i.content), 'truncated', true)
                                        else '{}'::jsonb end
                              order by i.position) as observations
               from inserted i group by i.entity_id) p),
    (select coalesce(max(c.observations_count), 0) from counted c),
    ${missing})`;
}

/**
 * Deletes observations of entities by their texts (or ids) in one statement,
 * lowering the entities' counts and marking them changed. Returns what went.
 */
export async function deleteObservations(
  db: Db,
  spaceId: string,
  removals: { entityId: string; content?: string | undefined; id?: string | undefined }[],
): Promise<ObservationRow[]> {
  if (removals.length === 0) return [];
  const batch = JSON.stringify(
    removals.map((item) => ({ entity_id: item.entityId, content: item.content, id: item.id })),
  );
  const result = await sql<ObservationRow>`
    with given as (
      select * from json_to_recordset(${batch}::json) as g(entity_id uuid, content text, id uuid)
    ),
    gone as (
      delete from observations o using given g
       where o.space_id = ${spaceId} and o.entity_id = g.entity_id
         and (o.id = g.id or o.content = g.content)
      returning ${sql.join(['id', 'entity_id', 'content', 'metadata', 'position', 'created_at'].map((column) => sql.ref(`o.${column}`)))}
    ),
    counted as (
      update entities e set observations_count = e.observations_count - c.count,
                            updated_at = clock_timestamp()
        from (select entity_id, count(*)::int as count from gone group by entity_id) c
       where e.space_id = ${spaceId} and e.id = c.entity_id
    )
    select * from gone order by entity_id, position
  `.execute(db);
  return result.rows;
}

/**
 * Removes observations by text from entities named by name, in one statement
 * that finds the entities, lowers their counts and stages an `entity_updated`
 * event for each entity that lost some, in the order the entities were first
 * named (migration 030), sent as `staging` says. Unknown names and texts are
 * skipped.
 */
export async function deleteObservationsByName(
  db: Db,
  spaceId: string,
  removals: { entityName: string; content: string }[],
  staging: Staging,
): Promise<void> {
  if (removals.length === 0) return;
  const batch = JSON.stringify(
    removals.map((item) => ({ entity_name: item.entityName, content: item.content })),
  );
  await runStaged(
    db,
    sql<{ staged: boolean }>`
    ${planOnce} with given as (
      select g.content, g.ord, e.id as entity_id
        from rows from (json_to_recordset(${batch}::json) as (entity_name text, content text))
               with ordinality as g(entity_name, content, ord)
        -- A probe by name per row, never a scan of the space's entities.
        cross join lateral ${entityNamed(spaceId, sql`g.entity_name`, sql`e.id`)} e
    ),
    -- A probe of the entity's observations per text named: as a join, the
    -- generic plan could hash every observation of the space instead.
    found as (
      select f.id from given g
       cross join lateral (select o.id from observations o
                            where o.space_id = ${spaceId} and o.entity_id = g.entity_id
                              and o.content = g.content) f
    ),
    gone as (
      delete from observations o
       where o.space_id = ${spaceId} and o.id in (select id from found)
      returning o.entity_id
    ),
    counted as (
      update entities e set observations_count = e.observations_count - c.count,
                            updated_at = clock_timestamp()
        from (select entity_id, count(*)::int as count from gone group by entity_id) c
       where e.space_id = ${spaceId} and e.id = c.entity_id
      returning e.id, e.name, e.type
    )
    select stage_events(
             ${staging.slot}::int,
             (select coalesce(jsonb_agg(jsonb_build_object(
                       'type', 'entity_updated',
                       'payload', jsonb_build_object('entityId', c.id, 'id', c.id,
                                                     'name', c.name, 'type', c.type))
                     order by (select min(g.ord) from given g where g.entity_id = c.id)), '[]')
                from counted c),
             0,
             '[]') as staged
  `,
    staging,
  );
}

/** Sets the order (and, when given, the metadata and when it held) of a kept observation. */
export async function updateObservation(
  db: Db,
  spaceId: string,
  id: string,
  changes: {
    position: number;
    metadata?: Record<string, unknown> | undefined;
    validity?: { validFrom: string | null; validTo: string | null } | undefined;
  },
): Promise<void> {
  await db
    .updateTable('observations')
    .set({
      position: changes.position,
      ...(changes.metadata ? { metadata: JSON.stringify(changes.metadata) } : {}),
      ...(changes.validity
        ? { valid_from: changes.validity.validFrom, valid_to: changes.validity.validTo }
        : {}),
    })
    .where('space_id', '=', spaceId)
    .where('id', '=', id)
    .execute();
}

/** Which of these observation ids the account has already. */
export async function existingObservationIds(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await sql<{ id: string }>`
    select id from observations where space_id = ${spaceId} and id = any(${ids}::uuid[])
  `.execute(db);
  return new Set(result.rows.map((row) => row.id));
}

/** An observation put back as history kept it (a revert): its id, text, order, dates and validity. */
export interface ObservationRestore {
  id: string;
  entityId: string;
  content: string;
  metadata: Record<string, unknown> | null;
  position: number;
  createdAt: string;
  validFrom: string | null;
  validTo: string | null;
}

/**
 * Inserts observations as they were (ids kept), raising their entities'
 * counts, in one statement that stages their `observation_added` events; an
 * id that exists is skipped. Returns what was inserted and the counts of the
 * entities that grew.
 */
export async function restoreObservations(
  db: Db,
  spaceId: string,
  items: ObservationRestore[],
  staging: Staging,
): Promise<Added> {
  if (items.length === 0) return { added: [], counts: [], byKey: new Map() };
  const result = await sql<AddedRow>`
    with given as (
      select * from json_to_recordset(${JSON.stringify(items)}::json) as g(
        "id" uuid, "entityId" uuid, content text, metadata json, position int,
        "createdAt" timestamptz, "validFrom" timestamptz, "validTo" timestamptz)
    ),
    inserted as (
      insert into observations (space_id, id, entity_id, content, metadata, position, created_at, valid_from, valid_to)
      select ${spaceId}, g.id, g."entityId", g.content, g.metadata, g.position, g."createdAt", g."validFrom", g."validTo"
        from given g
      on conflict do nothing
      returning ${observationColumns}
    ),
    ${countedInserted(spaceId)}
    union all
    select null, null, null, null, null, null, null, null, null, null, null,
           ${stageAdded(staging, sql`'[]'::jsonb`)}
     order by entity_id, position
  `.execute(db);
  return readAdded(result.rows);
}

/** Sets a kept observation back to what it was (a revert): text, metadata, order and validity. */
export async function setObservation(
  db: Db,
  spaceId: string,
  item: Omit<ObservationRestore, 'createdAt'>,
): Promise<void> {
  await db
    .updateTable('observations')
    .set({
      content: item.content,
      metadata: item.metadata === null ? null : JSON.stringify(item.metadata),
      position: item.position,
      valid_from: item.validFrom,
      valid_to: item.validTo,
    })
    .where('space_id', '=', spaceId)
    .where('id', '=', item.id)
    .where('entity_id', '=', item.entityId)
    .execute();
}
