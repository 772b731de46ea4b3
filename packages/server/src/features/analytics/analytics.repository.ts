import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface DashboardRows {
  entities: number;
  relations: number;
  observations: number;
  /** Entities created per day from `since` on, newest first; days without any left out. */
  activity: { date: string; count: number }[];
  /** The most recently added entities, newest first. */
  recent: { id: string; name: string; type: string; created_at: string }[];
  /** The most common entity types. */
  types: { type: string; count: number }[];
  /** API keys that count against the plan. */
  apiKeys: number;
}

/**
 * Everything the dashboard reads about an account's graph, in one statement
 * (one round trip): the totals migration 008 keeps on the account row, the
 * daily creation counters, the newest entities by the creation-order index,
 * the per-type counts the graph's writes keep, and the live API keys (as the
 * keys feature counts them: account keys neither rolled over nor expired — a
 * plan allows at most 50). Nothing here counts an account's graph rows, so it
 * takes the same few index reads at any account size.
 */
export async function dashboardRows(
  db: Db,
  accountId: string,
  options: { since: string; recent: number; types: number; now: Date },
): Promise<DashboardRows> {
  const result = await sql<{
    entities: number;
    relations: number;
    observations: number;
    activity: DashboardRows['activity'];
    recent: { id: string; name: string; type: string; created_at: string }[];
    types: DashboardRows['types'];
    api_keys: number;
  }>`
    select
      a.entity_count::float8 as entities,
      a.relation_count::float8 as relations,
      a.observation_count::float8 as observations,
      (select coalesce(json_agg(json_build_object('date', to_char(g.day, 'YYYY-MM-DD'),
                                                  'count', g.entities_created)
                                order by g.day desc), '[]')
         from graph_daily g
        where g.account_id = a.id and g.day >= ${options.since}::date and g.entities_created > 0
      ) as activity,
      (select coalesce(json_agg(json_build_object('id', e.id, 'name', e.name, 'type', e.type,
                                                  'created_at', e.created_at)
                                order by e.ordinal desc), '[]')
         from (select id, name, type, created_at, ordinal from entities
                where account_id = a.id order by ordinal desc limit ${options.recent}) e
      ) as recent,
      (select coalesce(json_agg(json_build_object('type', t.type, 'count', t.count)
                                order by t.count desc, t.type), '[]')
         from (select type, count from entity_type_counts
                where account_id = a.id and count > 0
                order by count desc, type limit ${options.types}) t
      ) as types,
      (select count(*)::int from api_keys k
        where k.account_id = a.id and k.kind = 'account' and k.replaced_by is null
          and (k.expires_at is null or k.expires_at > ${options.now})
      ) as api_keys
    from accounts a
    where a.id = ${accountId}
  `.execute(db);
  const row = result.rows[0];
  if (!row) {
    return {
      entities: 0,
      relations: 0,
      observations: 0,
      activity: [],
      recent: [],
      types: [],
      apiKeys: 0,
    };
  }
  return {
    entities: row.entities,
    relations: row.relations,
    observations: row.observations,
    activity: row.activity,
    // JSON carries the time as PostgreSQL prints it; answer ISO like every other date.
    recent: row.recent.map((entity) => ({
      ...entity,
      created_at: new Date(entity.created_at).toISOString(),
    })),
    types: row.types,
    apiKeys: row.api_keys,
  };
}
