import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** The account's graph at a glance, for the dashboard. */
export interface OverviewRows {
  entities: number;
  /** The account's entities in every space (the plan's limit counts these). */
  accountEntities: number;
  relations: number;
  observations: number;
  /** Entities created per day from `since` on, newest first; days without any left out. */
  activity: { date: string; count: number }[];
  /** The most recently added entities, newest first. */
  recent: { id: string; name: string; type: string; created_at: string }[];
  /** The most common entity types. */
  types: { type: string; count: number }[];
}

/**
 * One statement (one round trip) over the counters the writes keep: the
 * totals on the space's row, or the account's for every space (migrations
 * 008, 022), the account's daily creation counters, the newest entities by
 * the creation-order index and the per-type counts. Nothing here counts a
 * graph's rows; across every space it reads each space's newest few.
 */
export async function overview(
  db: Db,
  accountId: string,
  spaceId: string | null,
  options: { since: string; recent: number; types: number },
): Promise<OverviewRows> {
  const spaces = spaceId
    ? sql`select id from spaces where id = ${spaceId} and account_id = ${accountId}`
    : sql`select id from spaces where account_id = ${accountId} and deleted_at is null`;
  const totals = spaceId
    ? sql`select entity_count, relation_count, observation_count, account_id as id from spaces
           where id = ${spaceId} and account_id = ${accountId}`
    : sql`select entity_count, relation_count, observation_count, id from accounts where id = ${accountId}`;
  const result = await sql<Omit<OverviewRows, 'recent'> & { recent: OverviewRows['recent'] }>`
    select
      a.entity_count::float8 as entities,
      a.relation_count::float8 as relations,
      a.observation_count::float8 as observations,
      (select entity_count::float8 from accounts where id = ${accountId}) as "accountEntities",
      (select coalesce(json_agg(json_build_object('date', to_char(g.day, 'YYYY-MM-DD'),
                                                  'count', g.entities_created)
                                order by g.day desc), '[]')
         from graph_daily g
        where g.account_id = a.id and g.day >= ${options.since}::date and g.entities_created > 0
      ) as activity,
      (select coalesce(json_agg(json_build_object('id', e.id, 'name', e.name, 'type', e.type,
                                                  'created_at', e.created_at)
                                order by e.ordinal desc), '[]')
         from (select n.* from (${spaces}) s
                 cross join lateral (select id, name, type, created_at, ordinal from entities
                                      where space_id = s.id order by ordinal desc limit ${options.recent}) n
                order by n.ordinal desc limit ${options.recent}) e
      ) as recent,
      (select coalesce(json_agg(json_build_object('type', t.type, 'count', t.count)
                                order by t.count desc, t.type), '[]')
         from (select type, sum(count)::int as count from entity_type_counts
                where space_id in (${spaces}) and count > 0
                group by type order by 2 desc, type limit ${options.types}) t
      ) as types
    from (${totals}) a
  `.execute(db);
  const row = result.rows[0];
  if (!row)
    return {
      entities: 0,
      accountEntities: 0,
      relations: 0,
      observations: 0,
      activity: [],
      recent: [],
      types: [],
    };
  return {
    ...row,
    // JSON carries the time as PostgreSQL prints it; answer ISO like every other date.
    recent: row.recent.map((entity) => ({
      ...entity,
      created_at: new Date(entity.created_at).toISOString(),
    })),
  };
}
