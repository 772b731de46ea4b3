import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/** One record of the authorization server as the library stores it. */
export interface ModelRecord {
  payload: Record<string, unknown>;
  consumedAt: Date | null;
}

export async function upsertModel(
  db: Db,
  model: {
    kind: string;
    id: string;
    payload: Record<string, unknown>;
    grantId: string | null;
    uid: string | null;
    expiresAt: Date | null;
  },
): Promise<void> {
  const payload = JSON.stringify(model.payload);
  await db
    .insertInto('oauth_models')
    .values({
      kind: model.kind,
      id: model.id,
      payload,
      grant_id: model.grantId,
      uid: model.uid,
      expires_at: model.expiresAt,
    })
    .onConflict((oc) =>
      oc.columns(['kind', 'id']).doUpdateSet({
        payload,
        grant_id: model.grantId,
        uid: model.uid,
        expires_at: model.expiresAt,
      }),
    )
    .execute();
}

/** The record found by its id (or, `by: 'uid'`, its interaction uid), unless it has expired. */
export async function findModel(
  db: Db,
  kind: string,
  key: string,
  now: Date,
  by: 'id' | 'uid' = 'id',
): Promise<ModelRecord | undefined> {
  const row = await db
    .selectFrom('oauth_models')
    .select(['payload', 'consumed_at'])
    .where('kind', '=', kind)
    .where(by, '=', key)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return row && { payload: row.payload, consumedAt: row.consumed_at };
}

export async function consumeModel(db: Db, kind: string, id: string, at: Date): Promise<void> {
  await db
    .updateTable('oauth_models')
    .set({ consumed_at: at })
    .where('kind', '=', kind)
    .where('id', '=', id)
    .execute();
}

export async function destroyModel(db: Db, kind: string, id: string): Promise<void> {
  await db.deleteFrom('oauth_models').where('kind', '=', kind).where('id', '=', id).execute();
}

export async function revokeModelsOfGrant(db: Db, kind: string, grantId: string): Promise<void> {
  await db
    .deleteFrom('oauth_models')
    .where('kind', '=', kind)
    .where('grant_id', '=', grantId)
    .execute();
}

/** Ends a grant and everything issued under it (codes, tokens) in one statement each. */
export async function deleteGrant(db: Db, grantId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('oauth_models')
      .where((eb) =>
        eb.or([
          eb('grant_id', '=', grantId),
          eb.and([eb('kind', '=', 'Grant'), eb('id', '=', grantId)]),
        ]),
      )
      .execute();
    await trx.deleteFrom('oauth_grants').where('id', '=', grantId).execute();
  });
}

/**
 * Ends, inside the caller's transaction, the account's grants for any of
 * `resources` (a deleted space's addresses) and everything issued under
 * them; returns their ids.
 */
export async function deleteGrantsForResources(
  trx: Db,
  accountId: string,
  resources: string[],
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select g.id from oauth_grants g
    join oauth_models m on m.kind = 'Grant' and m.id = g.id
    where g.account_id = ${accountId}
      and exists (
        select 1 from jsonb_object_keys(coalesce(m.payload -> 'resources', '{}'::jsonb)) as r(url)
        where r.url = any(${resources}::text[])
      )`.execute(trx);
  const ids = rows.map((row) => row.id);
  if (ids.length === 0) return ids;
  await trx
    .deleteFrom('oauth_models')
    .where((eb) =>
      eb.or([eb('grant_id', 'in', ids), eb.and([eb('kind', '=', 'Grant'), eb('id', 'in', ids)])]),
    )
    .execute();
  await trx.deleteFrom('oauth_grants').where('id', 'in', ids).execute();
  return ids;
}

/** Removes up to `limit` expired records; returns how many went. */
export async function deleteExpiredModels(db: Db, now: Date, limit: number): Promise<number> {
  const result = await sql<{ count: number }>`
    with gone as (
      delete from oauth_models where ctid in (
        select ctid from oauth_models where expires_at <= ${now} limit ${limit}
      ) returning 1
    ) select count(*)::int as count from gone`.execute(db);
  return result.rows[0]?.count ?? 0;
}

export async function insertGrantOwner(
  db: Db,
  grant: {
    accountId: string;
    id: string;
    userId: string;
    clientId: string;
    clientName: string | null;
    clientLogoUri: string | null;
    clientUri: string | null;
  },
): Promise<void> {
  await db
    .insertInto('oauth_grants')
    .values({
      account_id: grant.accountId,
      id: grant.id,
      user_id: grant.userId,
      client_id: grant.clientId,
      client_name: grant.clientName,
      client_logo_uri: grant.clientLogoUri,
      client_uri: grant.clientUri,
      last_used_at: null,
    })
    .execute();
}

export interface GrantRow {
  id: string;
  client_id: string;
  client_name: string | null;
  client_logo_uri: string | null;
  client_uri: string | null;
  created_at: Date;
  last_used_at: Date | null;
  payload: Record<string, unknown>;
}

/** The user's live grants in the account, newest first. */
export async function listGrants(
  db: Db,
  accountId: string,
  userId: string,
  now: Date,
): Promise<GrantRow[]> {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_models as m', (join) =>
      join.onRef('m.id', '=', 'g.id').on('m.kind', '=', 'Grant'),
    )
    .select([
      'g.id',
      'g.client_id',
      'g.client_name',
      'g.client_logo_uri',
      'g.client_uri',
      'g.created_at',
      'g.last_used_at',
      'm.payload',
    ])
    .where('g.account_id', '=', accountId)
    .where('g.user_id', '=', userId)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', now)]))
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id', 'desc')
    .execute();
}

export async function grantBelongsTo(
  db: Db,
  accountId: string,
  userId: string,
  grantId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .where('id', '=', grantId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The user's grants, in one account or (no `accountId`) all of them. */
export async function grantIdsOfUser(
  db: Db,
  userId: string,
  accountId?: string,
): Promise<string[]> {
  let query = db.selectFrom('oauth_grants').select('id').where('user_id', '=', userId);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const rows = await query.execute();
  return rows.map((row) => row.id);
}

/** The grant's expiry, or undefined once it has ended (for holders of its tokens). */
export async function grantExpiry(
  db: Db,
  grantId: string,
  now: Date,
): Promise<{ expiresAt: Date | null } | undefined> {
  const row = await db
    .selectFrom('oauth_models')
    .select('expires_at')
    .where('kind', '=', 'Grant')
    .where('id', '=', grantId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return row && { expiresAt: row.expires_at };
}

export async function touchGrant(
  db: Db,
  accountId: string,
  grantId: string,
  at: Date,
): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ last_used_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', grantId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
    .execute();
}
