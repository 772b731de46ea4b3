import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  kind: 'account' | 'personal';
  name: string;
  key_preview: string;
  created_by: string;
  creator_name: string;
  expires_at: Date | null;
  replaced_by: string | null;
  rolled_from: string | null;
  /** Normalized; empty, full access. */
  permissions: string[];
  last_used_at: Date | null;
  total_requests: number;
  active_days: number;
  created_at: Date;
}

export interface KeyCredentialRow {
  id: string;
  account_id: string;
  created_by: string;
  expires_at: Date | null;
  permissions: string[];
}

function selectKeys(db: Db) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.created_by')
    .select([
      'k.id',
      'k.account_id',
      'k.kind',
      'k.name',
      'k.key_preview',
      'k.created_by',
      sql<string>`trim(u.first_name || ' ' || u.last_name)`.as('creator_name'),
      'k.expires_at',
      'k.replaced_by',
      'k.rolled_from',
      'k.permissions',
      'k.last_used_at',
      sql<number>`k.total_requests::int`.as('total_requests'),
      sql<number>`(select count(*)::int from api_key_usage_days d
                    where d.account_id = k.account_id and d.key_id = k.id)`.as('active_days'),
      'k.created_at',
    ]);
}

export async function listAccountKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return selectKeys(db)
    .where('k.account_id', '=', accountId)
    .where('k.kind', '=', 'account')
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id', 'desc')
    .execute();
}

export async function findAccountKey(
  db: Db,
  accountId: string,
  id: string,
): Promise<ApiKeyRow | undefined> {
  return selectKeys(db)
    .where('k.account_id', '=', accountId)
    .where('k.kind', '=', 'account')
    .where('k.id', '=', id)
    .executeTakeFirst();
}

/** Serialises key creation per account until the transaction ends (a lock of its own, not the account row graph writes take). */
export async function lockAccountKeys(db: Db, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`api_keys:${accountId}`}, 0))`.execute(
    db,
  );
}

/** Keys that count against the plan: not superseded by a roll and not expired. */
export async function countLiveAccountKeys(db: Db, accountId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'account')
    .where('replaced_by', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return row.count;
}

export async function insertKey(
  db: Db,
  key: {
    id?: string;
    accountId: string;
    kind: 'account' | 'personal';
    name: string;
    keyHash: string;
    keyPreview: string;
    createdBy: string;
    expiresAt: Date | null;
    /** Normalized (spaces.ts `normalizePermissions`); empty, full access. */
    permissions?: string[];
    rolledFrom?: string;
  },
): Promise<string> {
  const row = await db
    .insertInto('api_keys')
    .values({
      ...(key.id ? { id: key.id } : {}),
      account_id: key.accountId,
      kind: key.kind,
      name: key.name,
      key_hash: key.keyHash,
      key_preview: key.keyPreview,
      created_by: key.createdBy,
      expires_at: key.expiresAt,
      permissions: key.permissions ?? [],
      rolled_from: key.rolledFrom ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Marks a key as rolled: it points at its successor and expires at `expiresAt`. */
export async function supersedeKey(
  db: Db,
  accountId: string,
  id: string,
  successorId: string,
  expiresAt: Date,
): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ replaced_by: successorId, expires_at: expiresAt })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/**
 * Ends at once (expires now) the keys `successorId` replaced that are still in
 * their grace. Returns their ids, so what they opened can be closed.
 */
export async function endPredecessors(
  db: Db,
  accountId: string,
  successorId: string,
  now: Date,
): Promise<string[]> {
  const rows = await db
    .updateTable('api_keys')
    .set({ expires_at: now })
    .where('account_id', '=', accountId)
    .where('replaced_by', '=', successorId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

export async function deleteKey(
  db: Db,
  accountId: string,
  id: string,
  kind: 'account' | 'personal',
): Promise<boolean> {
  const rows = await db
    .deleteFrom('api_keys')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('kind', '=', kind)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/**
 * Deletes the account's keys with a grant in `names` (a deleted space's
 * `space:<slug>:read|write`; decision 039). Returns their ids.
 */
export async function deleteKeysNaming(
  db: Db,
  accountId: string,
  names: string[],
): Promise<string[]> {
  const rows = await db
    .deleteFrom('api_keys')
    .where('account_id', '=', accountId)
    .where('permissions', '&&', sql<string[]>`${names}::text[]`)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** One indexed equality on the key's hash. */
export async function findKeyByHash(
  db: Db,
  keyHash: string,
): Promise<KeyCredentialRow | undefined> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'created_by', 'expires_at', 'permissions'])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function findKeyById(
  db: Db,
  id: string,
): Promise<{ expires_at: Date | null } | undefined> {
  return db.selectFrom('api_keys').select('expires_at').where('id', '=', id).executeTakeFirst();
}

export async function findPersonalKey(
  db: Db,
  accountId: string,
  userId: string,
): Promise<{ id: string; key_hash: string } | undefined> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'key_hash'])
    .where('account_id', '=', accountId)
    .where('created_by', '=', userId)
    .where('kind', '=', 'personal')
    .executeTakeFirst();
}

/**
 * Deletes the keys the user made in the account, every kind or only `kind`
 * (the personal key); returns their ids.
 */
export async function deleteKeysMadeBy(
  db: Db,
  accountId: string,
  userId: string,
  kind?: 'personal',
): Promise<string[]> {
  let query = db
    .deleteFrom('api_keys')
    .where('account_id', '=', accountId)
    .where('created_by', '=', userId);
  if (kind) query = query.where('kind', '=', kind);
  const rows = await query.returning('id').execute();
  return rows.map((row) => row.id);
}

export interface UsageBatch {
  accountId: string;
  keyId: string;
  requests: number;
  lastUsedAt: Date;
  /** Requests per UTC day (YYYY-MM-DD). */
  days: Map<string, number>;
}

/** Adds aggregated usage; keys deleted meanwhile are skipped by the joins. */
export async function addUsage(db: Db, batch: UsageBatch): Promise<void> {
  // One transaction: the key's total and its days move together or not at all.
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('api_keys')
      .set({
        total_requests: sql`total_requests + ${batch.requests}`,
        last_used_at: sql`greatest(last_used_at, ${batch.lastUsedAt}::timestamptz)`,
      })
      .where('account_id', '=', batch.accountId)
      .where('id', '=', batch.keyId)
      .returning('id')
      .execute();
    if (updated.length === 0) return;
    for (const [day, requests] of batch.days) {
      await trx
        .insertInto('api_key_usage_days')
        .values({ account_id: batch.accountId, key_id: batch.keyId, day, requests })
        .onConflict((oc) =>
          oc.columns(['account_id', 'key_id', 'day']).doUpdateSet({
            requests: sql`api_key_usage_days.requests + ${requests}`,
          }),
        )
        .execute();
    }
  });
}
