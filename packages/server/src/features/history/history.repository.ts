import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/**
 * History (migration 026, docs/history.md): the graph rows each call changed,
 * as they were before it, and the calls themselves. The graph as of seq S is
 * the present with every row changed after S replaced by its image before
 * its earliest change after S (absent when that change created it).
 */

export type HistoryKind = 'e' | 'o' | 'r';

export interface HistoryRow {
  seq: number;
  kind: HistoryKind;
  row_id: string;
  entity_id: string;
  other_id: string | null;
  /** The row before the call (json as stored); null when the call created it. */
  before: Record<string, unknown> | null;
}

export interface CallRow {
  seq: number;
  last_seq: number;
  space_id: string;
  /**
   * The credential's kind and id, and the person behind it (`userId`: the
   * session's user, the key's creator, the user who connected the app;
   * absent in rows written before it was recorded).
   */
  actor: { kind: 'user' | 'api_key' | 'oauth'; id: string; userId?: string; origin?: string };
  at: Date;
  reverts: number | null;
  reverted_by: number | null;
}

export interface EventRow {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
}

/** History is complete after this seq and time (null: since the account began), and the last seq. */
export async function historyBounds(
  db: Db,
  accountId: string,
): Promise<{ seq: number; at: Date | null; latest: number }> {
  const result = await sql<{ seq: string; at: Date | null; latest: string }>`
    select history_seq::text as seq, history_at as at, event_seq::text as latest
      from accounts where id = ${accountId}
  `.execute(db);
  const row = result.rows[0];
  return { seq: Number(row?.seq ?? 0), at: row?.at ?? null, latest: Number(row?.latest ?? 0) };
}

/** The last seq of the newest call made at or before `at` (undefined when none is kept). */
export async function seqAtTime(db: Db, accountId: string, at: Date): Promise<number | undefined> {
  // Calls are in time order as in seq order: the first one found from the newest is it.
  const result = await sql<{ last: string }>`
    select last_seq::text as last from graph_calls
     where account_id = ${accountId} and at <= ${at}::timestamptz
     order by seq desc limit 1
  `.execute(db);
  const row = result.rows[0];
  return row ? Number(row.last) : undefined;
}

// ── the graph as of a seq ────────────────────────────────────────────────────

// ── calls and their rows ─────────────────────────────────────────────────────

const callColumns = sql`seq::float8 as seq, last_seq::float8 as last_seq, space_id, actor, at,
  reverts::float8 as reverts, reverted_by::float8 as reverted_by`;

/** The call that made change `seq` in the account (undefined when none is kept). */
export async function callContaining(
  db: Db,
  accountId: string,
  seq: number,
): Promise<CallRow | undefined> {
  const result = await sql<CallRow>`
    select ${callColumns} from graph_calls
     where account_id = ${accountId} and seq <= ${seq} and last_seq >= ${seq}
     order by seq desc limit 1
  `.execute(db);
  return result.rows[0];
}

/** The space's calls that changed this entity, its observations or its relations, newest first, starting before `beforeSeq`. */
export async function callsTouching(
  db: Db,
  accountId: string,
  spaceId: string,
  entityId: string,
  beforeSeq: number,
  limit: number,
): Promise<CallRow[]> {
  const result = await sql<CallRow>`
    with touched as (
      (select seq from graph_history
        where space_id = ${spaceId} and entity_id = ${entityId} and seq < ${beforeSeq}
        order by seq desc limit ${limit * 4})
      union
      (select seq from graph_history
        where space_id = ${spaceId} and other_id = ${entityId} and seq < ${beforeSeq}
        order by seq desc limit ${limit * 4})
    )
    select ${callColumns} from graph_calls
     where account_id = ${accountId} and seq in (select seq from touched)
     order by seq desc limit ${limit}
  `.execute(db);
  return result.rows;
}

/** The space's calls after `since` and through `until` (seqs), newest first, starting before `beforeSeq`. */
export async function callsInSpace(
  db: Db,
  spaceId: string,
  range: { since: number; until: number; beforeSeq: number },
  limit: number,
): Promise<CallRow[]> {
  const result = await sql<CallRow>`
    select ${callColumns} from graph_calls
     where space_id = ${spaceId} and seq > ${range.since} and seq <= ${range.until}
       and seq < ${range.beforeSeq}
     order by seq desc limit ${limit}
  `.execute(db);
  return result.rows;
}

/** The newest call in the space by this credential that is not a revert and was not reverted. */
export async function latestCallBy(
  db: Db,
  spaceId: string,
  actor: { kind: string; id: string },
): Promise<CallRow | undefined> {
  const result = await sql<CallRow>`
    select ${callColumns} from graph_calls
     where space_id = ${spaceId} and actor->>'kind' = ${actor.kind} and actor->>'id' = ${actor.id}
       and reverts is null and reverted_by is null
     order by seq desc limit 1
  `.execute(db);
  return result.rows[0];
}

/**
 * The change-log events of these calls (their seq ranges) before `beforeSeq`,
 * newest first, at most `limit` — only those about `entityId` (its own, or a
 * relation's with it at an end) when given. One call can hold many events:
 * a page reads no more than it shows.
 */
export async function eventsOfCalls(
  db: Db,
  accountId: string,
  calls: { seq: number; last_seq: number }[],
  page: { beforeSeq: number; limit: number; entityId?: string | undefined },
): Promise<EventRow[]> {
  if (calls.length === 0) return [];
  const firsts = calls.map((call) => call.seq);
  const lasts = calls.map((call) => call.last_seq);
  const about = page.entityId
    ? sql`and (${page.entityId} in (g.payload->>'entityId', g.payload->>'fromEntityId', g.payload->>'toEntityId')
               or coalesce(g.payload::jsonb->'mergedIds' ? ${page.entityId}, false))`
    : sql``;
  const result = await sql<EventRow>`
    select g.seq::float8 as seq, g.type, g.payload
      from unnest(${firsts}::bigint[], ${lasts}::bigint[]) as c(first, last)
      join graph_events g on g.account_id = ${accountId} and g.seq between c.first and c.last
     where g.seq < ${page.beforeSeq} ${about}
     order by g.seq desc
     limit ${page.limit}
  `.execute(db);
  return result.rows;
}

/**
 * The rows these calls changed (their images before each call); with
 * `entityIds`, only those entities' own rows and their observations' (what a
 * history page shows of a call that may have changed many more).
 */
export async function rowsOfCalls(
  db: Db,
  spaceId: string,
  seqs: number[],
  entityIds?: string[],
): Promise<HistoryRow[]> {
  if (seqs.length === 0) return [];
  const only = entityIds
    ? sql`and kind in ('e', 'o') and entity_id = any(${entityIds}::uuid[])`
    : sql``;
  const result = await sql<HistoryRow>`
    select seq::float8 as seq, kind, row_id, entity_id, other_id, before
      from graph_history where space_id = ${spaceId} and seq = any(${seqs}::bigint[]) ${only}
  `.execute(db);
  return result.rows;
}

/** Every later change (seq > `afterSeq`) to these rows, oldest first: what their versions after are read from. */
export async function laterChanges(
  db: Db,
  spaceId: string,
  rowIds: string[],
  afterSeq: number,
): Promise<HistoryRow[]> {
  if (rowIds.length === 0) return [];
  const result = await sql<HistoryRow>`
    select seq::float8 as seq, kind, row_id, entity_id, other_id, before
      from graph_history
     where space_id = ${spaceId} and row_id = any(${rowIds}::uuid[]) and seq > ${afterSeq}
     order by seq
  `.execute(db);
  return result.rows;
}

/** Changes after `afterSeq` to rows of these entities (their own, their observations', their relations'). */
export async function laterChangesOfEntities(
  db: Db,
  spaceId: string,
  entityIds: string[],
  afterSeq: number,
  limit: number,
): Promise<HistoryRow[]> {
  if (entityIds.length === 0) return [];
  const result = await sql<HistoryRow>`
    select seq::float8 as seq, kind, row_id, entity_id, other_id, before
      from graph_history
     where space_id = ${spaceId} and seq > ${afterSeq}
       and (entity_id = any(${entityIds}::uuid[]) or other_id = any(${entityIds}::uuid[]))
     order by seq limit ${limit}
  `.execute(db);
  return result.rows;
}

/** Present rows by id, as history images them (so a version reads the same from either). */
export async function presentImages(
  db: Db,
  spaceId: string,
  ids: string[],
): Promise<Map<string, { kind: HistoryKind; image: Record<string, unknown> }>> {
  if (ids.length === 0) return new Map();
  const result = await sql<{ id: string; kind: HistoryKind; image: Record<string, unknown> }>`
    select e.id, 'e' as kind, entity_image(e) as image from entities e
     where e.space_id = ${spaceId} and e.id = any(${ids}::uuid[])
    union all
    select o.id, 'o', observation_image(o) from observations o
     where o.space_id = ${spaceId} and o.id = any(${ids}::uuid[])
    union all
    select r.id, 'r', relation_image(r) from relations r
     where r.space_id = ${spaceId} and r.id = any(${ids}::uuid[])
  `.execute(db);
  return new Map(result.rows.map((row) => [row.id, { kind: row.kind, image: row.image }]));
}

/** A person's name as history shows it: "First Last", or their email when they gave no name. */
const personName = (users: string) =>
  sql.raw(
    `coalesce(nullif(trim(concat_ws(' ', ${users}.first_name, ${users}.last_name)), ''), ${users}.email)`,
  );

/** The person behind a call's actor: its `userId`, or (rows written before it) a session's own user. */
const actorUserId = (calls: string) =>
  sql.raw(
    `coalesce(${calls}.actor->>'userId', case when ${calls}.actor->>'kind' = 'user' then ${calls}.actor->>'id' end)::uuid`,
  );

/**
 * Who the actors are: people's names or emails (`user:<id>`, for sessions and
 * for the person behind any credential, `userId`), keys' and apps' names.
 */
export async function actorNames(
  db: Db,
  actors: { kind: string; id: string; userId?: string | undefined }[],
): Promise<Map<string, string>> {
  const ids = (kind: string) => [
    ...new Set(actors.filter((a) => a.kind === kind).map((a) => a.id)),
  ];
  const users = [
    ...new Set([...ids('user'), ...actors.flatMap((a) => (a.userId ? [a.userId] : []))]),
  ];
  const keys = ids('api_key');
  const names = new Map<string, string>();
  if (users.length > 0) {
    const result = await sql<{ id: string; name: string }>`
      select u.id, ${personName('u')} as name from users u where u.id = any(${users}::uuid[])
    `.execute(db);
    for (const row of result.rows) names.set(`user:${row.id}`, row.name);
  }
  if (keys.length > 0) {
    const result = await sql<{ id: string; name: string }>`
      select id, name from api_keys where id = any(${keys}::uuid[])
    `.execute(db);
    for (const row of result.rows) names.set(`api_key:${row.id}`, row.name);
  }
  return names;
}

/** Who created an entity and who last changed it, as history holds them (null: not held). */
export interface AuthorsRow {
  /** Whether the entity exists now in the space. */
  present: boolean;
  created_at: Date | null;
  created_user_id: string | null;
  created_user_name: string | null;
  updated_at: Date | null;
  updated_user_id: string | null;
  updated_user_name: string | null;
}

/**
 * The calls that created an entity and last changed it, with their people,
 * in one statement of index probes: its row's earliest history row (the
 * creation when it has no image before), and the newest history row of it,
 * its observations or a relation at either end (`graph_history_by_entity`,
 * `graph_history_by_other`); each call by its key, each person by id.
 */
export async function entityAuthors(
  db: Db,
  accountId: string,
  spaceId: string,
  entityId: string,
): Promise<AuthorsRow> {
  const result = await sql<AuthorsRow>`
    with probe as (
      select
        (select case when h.before is null then h.seq end from graph_history h
          where h.space_id = ${spaceId} and h.row_id = ${entityId}
          order by h.seq limit 1) as created,
        greatest(
          (select max(h.seq) from graph_history h
            where h.space_id = ${spaceId} and h.entity_id = ${entityId}),
          (select max(h.seq) from graph_history h
            where h.space_id = ${spaceId} and h.other_id = ${entityId})
        ) as updated
    )
    select exists (select 1 from entities e where e.space_id = ${spaceId} and e.id = ${entityId}) as present,
           cc.at as created_at, cu.id as created_user_id, ${personName('cu')} as created_user_name,
           uc.at as updated_at, uu.id as updated_user_id, ${personName('uu')} as updated_user_name
      from probe p
      left join graph_calls cc on cc.account_id = ${accountId} and cc.seq = p.created
      left join users cu on cu.id = ${actorUserId('cc')}
      left join graph_calls uc on uc.account_id = ${accountId} and uc.seq = p.updated
      left join users uu on uu.id = ${actorUserId('uc')}
  `.execute(db);
  return result.rows[0]!;
}

// ── purge and compaction ─────────────────────────────────────────────────────

/**
 * Removes an entity's history for good: its rows', its observations' and its
 * relations' images, and the texts its change-log events carried (their
 * names and observation previews become empty; the events stay, so the
 * log's seqs have no gap).
 */
export async function purgeEntityHistory(
  db: Db,
  accountId: string,
  spaceId: string,
  entityId: string,
): Promise<number> {
  const result = await sql<{ removed: number }>`
    with gone as (
      delete from graph_history
       where space_id = ${spaceId} and (entity_id = ${entityId} or other_id = ${entityId})
      returning seq
    ),
    calls as (
      select c.seq, c.last_seq from graph_calls c
       where c.account_id = ${accountId} and c.seq in (select distinct seq from gone)
    ),
    scrubbed as (
    update graph_events g
       set payload = case
             when g.type = 'observation_added' then jsonb_set(g.payload, '{observations}', '[]'::jsonb)
             when g.payload ? 'name' then g.payload || '{"name": "", "type": ""}'::jsonb
             else g.payload end
      from calls c
     where g.account_id = ${accountId} and g.seq between c.seq and c.last_seq
       and g.payload->>'entityId' = ${entityId}
    )
    select count(*)::int as removed from gone
  `.execute(db);
  return result.rows[0]?.removed ?? 0;
}

/**
 * Compacts history with the change log (change-log.service): the rows and
 * calls through the seq the log was compacted to, and raises the horizon to
 * it and to the time of the last call removed.
 */
export async function compactHistory(db: Db, accountId: string): Promise<void> {
  await sql`
    with horizon as (
      select events_compacted_seq as seq from accounts
       where id = ${accountId} and events_compacted_seq > history_seq
    ),
    calls as (
      delete from graph_calls c using horizon
       where c.account_id = ${accountId} and c.last_seq <= horizon.seq
      returning c.at
    ),
    moved as (
      update accounts a
         set history_seq = horizon.seq,
             history_at = greatest(a.history_at, (select max(at) from calls))
        from horizon where a.id = ${accountId}
    )
    delete from graph_history g using horizon
     where g.space_id in (select id from spaces where account_id = ${accountId})
       and g.seq <= horizon.seq
  `.execute(db);
}
