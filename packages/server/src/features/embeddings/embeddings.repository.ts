import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hidden, planOnce } from '../../db/prepared.js';

/**
 * The semantic index's tables (migrations 019, 024). The index's state is
 * the account's (it follows the account's change log); its vectors are
 * keyed like observations, by space (migration 022), so every query on
 * observations or vectors names the space, and those acting on the whole
 * account reach its spaces through `spaces`. Vectors travel as base64 text
 * (`encode`/`decode`), which both databases and both drivers pass as plain
 * strings, and which PGlite reads ten times faster than bytea.
 */

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

export interface StateRow {
  account_id: string;
  model: string;
  applied_seq: number;
  walk_seq: number | null;
  walk_phase: 'observations' | 'vectors' | null;
  /** The space the walk is in; null before it reaches the first one. */
  walk_space: string | null;
  walk_cursor: string | null;
  last_error: string | null;
}

/**
 * Accounts with something to do for `model`, longest untouched first: a
 * first walk (observations but no state yet), a model to replace, a walk
 * under way, or change-log events not yet applied. Skips deleted accounts,
 * those another node holds, and those waiting for storage room.
 */
export async function accountsWithWork(
  db: Db,
  model: string,
  limit: number,
): Promise<{ id: string; eventSeq: number }[]> {
  const result = await sql<{ id: string; event_seq: number }>`
    select a.id, a.event_seq::float8 as event_seq
      from accounts a
      left join embedding_state s on s.account_id = a.id
     where a.deleted_at is null
       and (s.account_id is null and a.observation_count > 0
            or s.model <> ${model} or s.walk_seq is not null or s.applied_seq < a.event_seq)
       and (s.lease_until is null or s.lease_until < now())
       and (s.retry_at is null or s.retry_at <= now())
     order by s.updated_at nulls first
     limit ${limit}
  `.execute(db);
  return result.rows.map((row) => ({ id: row.id, eventSeq: row.event_seq }));
}

const stateColumns = sql`account_id, model, applied_seq::float8 as applied_seq,
  walk_seq::float8 as walk_seq, walk_phase, walk_space, walk_cursor, last_error`;

/** The account's state (after its claim: follower/leases.repository.ts holds the lease). */
export async function stateOf(db: Db, accountId: string): Promise<StateRow | undefined> {
  const result = await sql<StateRow>`
    select ${stateColumns} from embedding_state where account_id = ${accountId}
  `.execute(db);
  return result.rows[0];
}

/**
 * Removes up to `limit` of the account's vectors of other models, in any of
 * its spaces (a deleted one's too: they go either way); returns how many went.
 */
export async function removeOtherModels(
  db: Db,
  accountId: string,
  model: string,
  limit: number,
): Promise<number> {
  const result = await sql<{ count: number }>`
    with gone as (
      delete from observation_embeddings
       where (space_id, observation_id) in (
         select space_id, observation_id from observation_embeddings
          where space_id in (select id from spaces where account_id = ${accountId})
            and model <> ${model}
          limit ${limit})
      returning 1
    )
    select count(*)::int as count from gone
  `.execute(db);
  return result.rows[0]?.count ?? 0;
}

/**
 * Starts a walk of everything for `model` (the first one, after a model
 * change, or when the change log was compacted past the applied position).
 */
export async function restartWalk(
  db: Db,
  accountId: string,
  holder: string,
  walk: { model: string; seq: number },
): Promise<void> {
  await sql`
    update embedding_state
       set model = ${walk.model}, walk_seq = ${walk.seq}, walk_phase = 'observations',
           walk_space = null, walk_cursor = null, updated_at = now()
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
}

/** Where the walk is; false when the account is no longer ours. Renews the lease too. */
export async function saveWalk(
  db: Db,
  accountId: string,
  holder: string,
  walk: {
    phase: 'observations' | 'vectors';
    space: string | null;
    cursor: string | null;
    leaseMs: number;
  },
): Promise<boolean> {
  const result = await sql`
    update embedding_state
       set walk_phase = ${walk.phase}, walk_space = ${walk.space}::uuid,
           walk_cursor = ${walk.cursor}::uuid,
           lease_until = now() + ${walk.leaseMs} * interval '1 millisecond', updated_at = now()
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** The walk is over: the change log counts as applied through the seq it started at. */
export async function finishWalk(db: Db, accountId: string, holder: string): Promise<void> {
  await sql`
    update embedding_state
       set applied_seq = greatest(applied_seq, walk_seq), walk_seq = null, walk_phase = null,
           walk_space = null, walk_cursor = null, updated_at = now()
     where account_id = ${accountId} and lease_holder = ${holder}
  `.execute(db);
}

export interface Pending {
  id: string;
  content: string;
}

/**
 * The account's next space after `after` in id order (the first with null),
 * deleted ones skipped: where a walk goes on. Undefined after the last.
 */
export async function nextSpace(
  db: Db,
  accountId: string,
  after: string | null,
): Promise<string | undefined> {
  const result = await sql<{ id: string }>`
    select id from spaces
     where account_id = ${accountId} and id > ${after ?? ZERO_UUID}::uuid and deleted_at is null
     order by id limit 1
  `.execute(db);
  return result.rows[0]?.id;
}

/** The space is there and not deleted: its rows are worth embedding (a deleted one's are being purged). */
const liveSpace = (spaceId: string) =>
  sql`exists (select 1 from spaces s where s.id = ${spaceId} and s.deleted_at is null)`;

/**
 * The space's next `limit` observations after `cursor` by id, each with its
 * text when it has no vector (null when it has one): one page of a walk,
 * whose length is bounded whatever share of it is embedded already. None
 * once the space is deleted.
 */
export async function walkObservations(
  db: Db,
  spaceId: string,
  cursor: string | null,
  limit: number,
): Promise<{ id: string; content: string | null }[]> {
  const result = await sql<{ id: string; content: string | null }>`
    select o.id, case when e.observation_id is null then o.content end as content
      from (select id, content from observations
             where space_id = ${spaceId} and id > ${cursor ?? ZERO_UUID}::uuid
               and ${liveSpace(spaceId)}
             order by id limit ${limit}) o
      left join observation_embeddings e
        on e.space_id = ${spaceId} and e.observation_id = o.id
     order by o.id
  `.execute(db);
  return result.rows;
}

/**
 * The space's next `limit` vectors after `cursor`, removing those whose
 * observation is gone. Returns how many were looked at, the last one, and
 * how many went. None once the space is deleted (its purge removes them).
 */
export async function sweepVectors(
  db: Db,
  spaceId: string,
  cursor: string | null,
  limit: number,
): Promise<{ scanned: number; last: string | null; removed: number }> {
  const result = await sql<{ scanned: number; last: string | null; removed: number }>`
    with page as (
      select observation_id from observation_embeddings
       where space_id = ${spaceId} and observation_id > ${cursor ?? ZERO_UUID}::uuid
         and ${liveSpace(spaceId)}
       order by observation_id limit ${limit}
    ),
    gone as (
      delete from observation_embeddings e
       where e.space_id = ${spaceId}
         and e.observation_id in (select observation_id from page)
         and not exists (select 1 from observations o
                          where o.space_id = ${spaceId} and o.id = e.observation_id)
      returning 1
    )
    select (select count(*) from page)::int as scanned,
           (select observation_id from page order by observation_id desc limit 1) as last,
           (select count(*) from gone)::int as removed
  `.execute(db);
  return result.rows[0] ?? { scanned: 0, last: null, removed: 0 };
}

/**
 * Removes the vectors of these entities of the space whose observation is
 * gone, and files those whose observation moved (a merge) under its entity
 * now; returns how many went.
 */
export async function removeOrphansOf(
  db: Db,
  spaceId: string,
  entityIds: string[],
): Promise<number> {
  if (entityIds.length === 0) return 0;
  const result = await sql<{ count: number }>`
    with gone as (
      delete from observation_embeddings e
       where e.space_id = ${spaceId} and e.entity_id = any(${entityIds}::uuid[])
         and not exists (select 1 from observations o
                          where o.space_id = ${spaceId} and o.id = e.observation_id)
      returning 1
    ),
    -- Observations a merge moved (or its revert moved back) keep their vectors, under their entity now.
    moved as (
      update observation_embeddings e set entity_id = o.entity_id
        from observations o
       where e.space_id = ${spaceId} and e.entity_id = any(${entityIds}::uuid[])
         and o.space_id = ${spaceId} and o.id = e.observation_id and o.entity_id <> e.entity_id
    )
    select count(*)::int as count from gone
  `.execute(db);
  return result.rows[0]?.count ?? 0;
}

/** Up to `limit` observations of these entities of the space that have no vector (none once it is deleted). */
export async function missingOf(
  db: Db,
  spaceId: string,
  entityIds: string[],
  limit: number,
): Promise<Pending[]> {
  if (entityIds.length === 0) return [];
  const result = await sql<Pending>`
    select o.id, o.content from observations o
     where o.space_id = ${spaceId} and o.entity_id = any(${entityIds}::uuid[])
       and ${liveSpace(spaceId)}
       and not exists (select 1 from observation_embeddings e
                        where e.space_id = ${spaceId} and e.observation_id = o.id)
     limit ${limit}
  `.execute(db);
  return result.rows;
}

/**
 * Stores vectors (base64 of their int8 components; empty for a text the
 * endpoint refused) for the space's observations that still exist: one
 * deleted meanwhile gets none (nor does any once the space is deleted), one
 * stored meanwhile by another node keeps its own. Each vector takes its
 * observation row's space. The trigger of migration 022 counts them in the
 * account's storage. Returns how many were stored.
 */
export async function storeVectors(
  db: Db,
  spaceId: string,
  model: string,
  rows: { observationId: string; vector: string }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql<{ id: string }>`
    insert into observation_embeddings (space_id, observation_id, entity_id, model, vector)
    select o.space_id, o.id, o.entity_id, ${model}, decode(v.vector, 'base64')
      from unnest(${rows.map((row) => row.observationId)}::uuid[],
                  ${rows.map((row) => row.vector)}::text[]) as v(id, vector)
      join observations o on o.space_id = ${spaceId} and o.id = v.id
     where ${liveSpace(spaceId)}
    on conflict (space_id, observation_id) do nothing
    returning observation_id as id
  `.execute(db);
  return result.rows.length;
}

export async function storedBytesOf(db: Db, accountId: string): Promise<number> {
  const result = await sql<{ bytes: number }>`
    select stored_bytes::float8 as bytes from accounts where id = ${accountId}
  `.execute(db);
  return result.rows[0]?.bytes ?? 0;
}

/** An account's own failure (storage full), and when to look at it again. */
export async function noteAccountError(
  db: Db,
  accountId: string,
  message: string,
  retryAfterMs: number,
): Promise<void> {
  await sql`
    update embedding_state
       set last_error = ${message}, retry_at = now() + ${retryAfterMs} * interval '1 millisecond',
           updated_at = now()
     where account_id = ${accountId}
  `.execute(db);
}

export async function clearAccountError(db: Db, accountId: string): Promise<void> {
  await sql`
    update embedding_state set last_error = null, retry_at = null
     where account_id = ${accountId} and (last_error is not null or retry_at is not null)
  `.execute(db);
}

/** The dimensions recorded for `model`: the first vectors stored set them. */
export async function modelDimensions(db: Db, model: string, proposed: number): Promise<number> {
  const result = await sql<{ dimensions: number }>`
    insert into embedding_models as m (model, dimensions) values (${model}, ${proposed})
    on conflict (model) do update set dimensions = coalesce(m.dimensions, excluded.dimensions)
    returning dimensions
  `.execute(db);
  return result.rows[0]?.dimensions ?? proposed;
}

/** The endpoint's last failure, shown on every account's dashboard until a request works. */
export async function noteModelError(db: Db, model: string, message: string): Promise<void> {
  await sql`
    insert into embedding_models as m (model, last_error, failed_at)
    values (${model}, ${message}, now())
    on conflict (model) do update set last_error = excluded.last_error, failed_at = now()
  `.execute(db);
}

export async function clearModelError(db: Db, model: string): Promise<void> {
  await sql`
    update embedding_models set last_error = null, failed_at = null
     where model = ${model} and last_error is not null
  `.execute(db);
}

/** The stored vectors (base64) of these observations of the space for `model`; refused ones left out. */
export async function vectorsOf(
  db: Db,
  spaceId: string,
  model: string,
  observationIds: string[],
): Promise<{ observation_id: string; vector: string }[]> {
  if (observationIds.length === 0) return [];
  const result = await sql<{ observation_id: string; vector: string }>`
    ${planOnce} select observation_id, encode(vector, 'base64') as vector
      from observation_embeddings
     where space_id = ${spaceId}
       and observation_id = any(${hidden(sql`${observationIds}::uuid[]`)}::uuid[])
       and model = ${model} and octet_length(vector) > 0
  `.execute(db);
  return result.rows;
}

/**
 * Up to `limit` of the space's vectors for `model` (base64), in no order:
 * one statement that reads them as stored, for a full scan.
 */
export async function allVectors(
  db: Db,
  spaceId: string,
  model: string,
  limit: number,
): Promise<{ observation_id: string; vector: string }[]> {
  const result = await sql<{ observation_id: string; vector: string }>`
    select observation_id, encode(vector, 'base64') as vector
      from observation_embeddings
     where space_id = ${spaceId} and model = ${model} and octet_length(vector) > 0
     limit ${limit}
  `.execute(db);
  return result.rows;
}

/**
 * What bounds a scan of the space's vectors for `model`, from counters
 * alone: the space's observations, and the vectors of its account (none
 * when they belong to another model). The space holds at most the fewer,
 * give or take vectors of observations deleted a moment ago.
 */
export async function scanSizeOf(
  db: Db,
  spaceId: string,
  model: string,
): Promise<{ observations: number; accountVectors: number } | undefined> {
  const result = await sql<{ observations: number; account_vectors: number }>`
    select s.observation_count::float8 as observations,
           case when e.model = ${model} then e.vectors::float8 else 0 end as account_vectors
      from spaces s
      left join embedding_state e on e.account_id = s.account_id
     where s.id = ${spaceId}
  `.execute(db);
  const row = result.rows[0];
  return row && { observations: row.observations, accountVectors: row.account_vectors ?? 0 };
}

export interface StatusRow {
  observations: number;
  model: string | null;
  vectors: number | null;
  account_error: string | null;
  model_error: string | null;
}

/** What the dashboard shows: counters only, never a count of the account's rows. */
export async function statusOf(
  db: Db,
  accountId: string,
  model: string,
): Promise<StatusRow | undefined> {
  const result = await sql<StatusRow>`
    select a.observation_count::float8 as observations, s.model, s.vectors::float8 as vectors,
           s.last_error as account_error, m.last_error as model_error
      from accounts a
      left join embedding_state s on s.account_id = a.id
      left join embedding_models m on m.model = ${model}
     where a.id = ${accountId}
  `.execute(db);
  return result.rows[0];
}
