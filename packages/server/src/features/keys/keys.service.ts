import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  EXPIRING_SOON_DAYS,
  maskKey,
  normalizePermissions,
  ROLL_GRACE_DAYS,
  spacePermission,
  UNLIMITED,
  type ApiKey,
  type CreatedApiKey,
  type RolledApiKey,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { initSetting } from '../../db/instance-settings.js';
import type { AuthContext, CredentialContext } from '../../lib/auth-context.js';
import { conflict, forbidden, notFound, planLimit } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import type { CredentialCache } from '../../lib/credential-cache.js';
import { requireFullAccess } from '../../lib/space-access.js';
import type { Entitlements } from '../entitlements/index.js';
import { bindService, type CredentialChange } from '../feature.js';
import type { KeyUsageTracker } from './key-usage.js';
import * as repo from './keys.repository.js';

export const API_KEY_PREFIX = 'eng_key_';
export const ROLL_MAKER_ONLY_MESSAGE =
  'Only the person who made this key can roll it: its new secret acts as them. Delete it instead, or ask them to roll it';
const DAY_MS = 86_400_000;

export interface KeysDeps {
  db: Db;
  now: () => Date;
  usage: KeyUsageTracker;
  /** Instance secret from which personal keys are derived. */
  secret: string;
  /** Tells every node that these credentials were revoked or their expiry moved. */
  credentialsChanged: (changes: CredentialChange[]) => void;
  /** Key rows verified recently (forgotten when a key changes). */
  verified: CredentialCache;
  /** The plan in force, for its key limit. */
  entitlements: Entitlements;
}

/** The configured secret, or one generated on first start and kept in the database. */
export async function instanceSecret(db: Db, configured: string | undefined): Promise<string> {
  return configured ?? initSetting(db, 'personal_key_secret', randomBytes(32).toString('hex'));
}

function toApiKey(row: repo.ApiKeyRow, now: Date): ApiKey {
  const expiresAt = row.expires_at?.getTime();
  const isExpired = expiresAt !== undefined && expiresAt <= now.getTime();
  return {
    id: row.id,
    name: row.name,
    keyPreview: row.key_preview,
    permissions: row.permissions,
    expiresAt: row.expires_at?.toISOString() ?? null,
    isExpired,
    // A rolled key in its grace is on its way out however long it has left.
    isExpiringSoon:
      !isExpired &&
      expiresAt !== undefined &&
      (row.replaced_by !== null || expiresAt - now.getTime() <= EXPIRING_SOON_DAYS * DAY_MS),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    createdBy: { id: row.created_by, name: row.creator_name || 'Unknown' },
    usage: { totalRequests: row.total_requests, activeDays: row.active_days },
    replacedById: row.replaced_by,
    replacesId: row.rolled_from,
  };
}

/** Whether the person may see and manage this key: admins and owners every key, members their own. */
const mayManage = (auth: AuthContext, row: Pick<repo.ApiKeyRow, 'created_by'>) =>
  auth.role === 'owner' || auth.role === 'admin' || row.created_by === auth.userId;

/** A key the person may manage; another member's key is as invisible as another account's (404). */
async function requireKey(db: Db, auth: AuthContext, id: string): Promise<repo.ApiKeyRow> {
  const row = isUuid(id) ? await repo.findAccountKey(db, auth.accountId, id) : undefined;
  if (!row || !mayManage(auth, row)) throw notFound('API key');
  return row;
}

// Managing keys belongs to the whole account: each act below refuses a scoped
// credential (403), or a key limited to one space could mint itself a full one,
// and a viewer (read only: a key of theirs could write nothing anyway).
function requireKeyManager(auth: AuthContext): void {
  requireFullAccess(auth);
  if (auth.role === 'viewer') throw forbidden('Viewers cannot manage API keys');
}

export async function listKeys(deps: KeysDeps, auth: AuthContext): Promise<ApiKey[]> {
  requireKeyManager(auth);
  // Usage is counted in memory between flushes; flush so the list is exact.
  await deps.usage.flush();
  const now = deps.now();
  return (await repo.listAccountKeys(deps.db, auth.accountId))
    .filter((row) => mayManage(auth, row))
    .map((row) => toApiKey(row, now));
}

export async function createKey(
  deps: KeysDeps,
  auth: AuthContext,
  input: { name: string; permissions?: readonly string[]; expiresInDays?: number | undefined },
): Promise<CreatedApiKey> {
  requireKeyManager(auth);
  const now = deps.now();
  return deps.db.transaction().execute(async (trx) => {
    await assertRoomForKey(deps, trx, auth.accountId, now);
    const expiresAt = input.expiresInDays
      ? new Date(now.getTime() + input.expiresInDays * DAY_MS)
      : null;
    return issueKey(trx, auth, now, {
      name: input.name,
      permissions: normalizePermissions(input.permissions ?? []),
      expiresAt,
    });
  });
}

/**
 * Refuses a new live key past the plan's limit. Holds the account's key lock
 * until the transaction ends, so concurrent creations are counted one after
 * another and never overshoot.
 */
async function assertRoomForKey(
  deps: KeysDeps,
  trx: Db,
  accountId: string,
  now: Date,
): Promise<void> {
  await repo.lockAccountKeys(trx, accountId);
  const plan = await deps.entitlements.planOf(accountId, now, trx);
  const max = plan.features.maxApiKeys;
  if (max !== UNLIMITED && (await repo.countLiveAccountKeys(trx, accountId, now)) >= max) {
    throw planLimit(
      `API key limit reached: the ${plan.name} plan allows ${max} API key${max === 1 ? '' : 's'}. Delete a key or upgrade your plan to create more.`,
    );
  }
}

async function issueKey(
  trx: Db,
  auth: AuthContext,
  now: Date,
  key: {
    name: string;
    permissions: string[];
    expiresAt: Date | null;
    rolledFrom?: string;
  },
): Promise<CreatedApiKey> {
  const secret = newSecret(API_KEY_PREFIX);
  const id = await repo.insertKey(trx, {
    accountId: auth.accountId,
    kind: 'account',
    name: key.name,
    keyHash: hashSecret(secret),
    keyPreview: maskKey(secret),
    createdBy: auth.userId,
    expiresAt: key.expiresAt,
    permissions: key.permissions,
    ...(key.rolledFrom ? { rolledFrom: key.rolledFrom } : {}),
  });
  const row = await repo.findAccountKey(trx, auth.accountId, id);
  return { ...toApiKey(row!, now), apiKey: secret };
}

/**
 * Issues a successor at once; the rolled key keeps working for 14 days (or
 * until its own earlier expiry), then is refused. Only the key's maker may
 * roll it (403 for an owner or admin who sees another's key). A key has at most one
 * predecessor in grace: the key the rolled one itself replaced, if still in
 * its grace, ends now. Otherwise five rolls would leave six working keys
 * (each with its own rate-limit budget) where the plan allows one.
 */
export async function rollKey(
  deps: KeysDeps,
  auth: AuthContext,
  id: string,
): Promise<RolledApiKey> {
  requireKeyManager(auth);
  const now = deps.now();
  const { rolled, ended } = await deps.db.transaction().execute(async (trx) => {
    // Two rolls of one key at once: the second sees the first's successor.
    await repo.lockAccountKeys(trx, auth.accountId);
    const old = await requireKey(trx, auth, id);
    // A roll hands over a secret that acts as the key's maker: only they may
    // roll it (owners and admins still list and delete it; docs/product.md).
    if (old.created_by !== auth.userId) throw forbidden(ROLL_MAKER_ONLY_MESSAGE);
    // A predecessor in grace is not rolled again: a second successor would be one more key.
    if (old.replaced_by)
      throw conflict('This key has already been rolled; roll its successor instead');
    // A live key's successor takes its place; an expired key's would be one more.
    if (old.expires_at && old.expires_at.getTime() <= now.getTime()) {
      await assertRoomForKey(deps, trx, auth.accountId, now);
    }
    const lifetime = old.expires_at ? old.expires_at.getTime() - old.created_at.getTime() : null;
    const newKey = await issueKey(trx, auth, now, {
      name: old.name,
      // The successor replaces the key in place: it may do exactly what the key did.
      permissions: old.permissions,
      expiresAt: lifetime ? new Date(now.getTime() + lifetime) : null,
      rolledFrom: old.id,
    });
    const graceEnd = new Date(now.getTime() + ROLL_GRACE_DAYS * DAY_MS);
    const oldExpiry = old.expires_at && old.expires_at < graceEnd ? old.expires_at : graceEnd;
    await repo.supersedeKey(trx, auth.accountId, old.id, newKey.id, oldExpiry);
    const ended = await repo.endPredecessors(trx, auth.accountId, old.id, now);
    return {
      rolled: { newKey, oldKey: { id: old.id, expiresAt: oldExpiry.toISOString() } },
      ended,
    };
  });
  // Whatever the old key holds open now ends at its new expiry; what its predecessor holds, now.
  deps.credentialsChanged(
    [rolled.oldKey.id, ...ended].map((keyId) => ({ kind: 'api_key' as const, id: keyId })),
  );
  return rolled;
}

/**
 * Deletes a key, and ends the key it replaced if that one is still in its
 * grace: a predecessor works only beside its successor, or deleting the
 * successor and creating a new key would let working keys pile up past the plan.
 */
export async function deleteKey(deps: KeysDeps, auth: AuthContext, id: string): Promise<void> {
  requireKeyManager(auth);
  const ended =
    isUuid(id) &&
    (await deps.db.transaction().execute(async (trx) => {
      await repo.lockAccountKeys(trx, auth.accountId);
      const row = await repo.findAccountKey(trx, auth.accountId, id);
      if (!row || !mayManage(auth, row)) return false;
      if (!(await repo.deleteKey(trx, auth.accountId, id, 'account'))) return false;
      return [id, ...(await repo.endPredecessors(trx, auth.accountId, id, deps.now()))];
    }));
  if (!ended) throw notFound('API key');
  deps.credentialsChanged(ended.map((keyId) => ({ kind: 'api_key' as const, id: keyId })));
}

/** API keys that count against the plan: account keys neither rolled over nor expired. */
export async function liveKeyCount(deps: KeysDeps, accountId: string): Promise<number> {
  return repo.countLiveAccountKeys(deps.db, accountId, deps.now());
}

/** The key's expiry, or undefined once it is deleted (for holders of the key). */
export async function keyStatus(
  deps: KeysDeps,
  keyId: string,
): Promise<{ expiresAt: Date | null } | undefined> {
  if (!isUuid(keyId)) return undefined;
  const row = await repo.findKeyById(deps.db, keyId);
  return row ? { expiresAt: row.expires_at } : undefined;
}

/**
 * The context of an API key (account or personal), or undefined when unknown
 * or expired. It acts in the account it was made in, as the person who made
 * it (their role there is added by the members service).
 */
export async function authenticateApiKey(
  deps: KeysDeps,
  credential: string,
): Promise<CredentialContext | undefined> {
  if (!credential.startsWith(API_KEY_PREFIX)) return undefined;
  const key = await deps.verified.lookup(
    'api_key',
    hashSecret(credential),
    (hash) => repo.findKeyByHash(deps.db, hash),
    (row) => row.id,
  );
  const now = deps.now();
  if (!key || (key.expires_at && key.expires_at.getTime() <= now.getTime())) return undefined;
  deps.usage.record(key.account_id, key.id, now);
  return {
    accountId: key.account_id,
    userId: key.created_by,
    actor: { kind: 'api_key', id: key.id },
    credential: { kind: 'api_key', id: key.id, expiresAt: key.expires_at },
    // The row's own list (cached with it): empty for personal and unscoped keys, full access.
    permissions: key.permissions,
  };
}

function derivePersonalKey(secret: string, rowId: string): string {
  const mac = createHmac('sha256', secret).update(`personal:${rowId}`).digest('base64url');
  return `${API_KEY_PREFIX}${mac}`;
}

/**
 * The user's personal key in this account, created on first use. Only its
 * hash is stored: the key itself is re-derived from the instance secret. When
 * the secret has changed since (SECRET_KEY set or changed), the stored hash no
 * longer matches what would be shown: the key is replaced, so the one shown
 * always works.
 */
export async function personalKey(
  deps: KeysDeps,
  accountId: string,
  userId: string,
): Promise<string> {
  const existing = await repo.findPersonalKey(deps.db, accountId, userId);
  if (existing) {
    const key = derivePersonalKey(deps.secret, existing.id);
    if (hashSecret(key) === existing.key_hash) return key;
    await deleteKeysMadeBy(deps, accountId, userId, 'personal');
  }
  const id = randomUUID();
  const key = derivePersonalKey(deps.secret, id);
  try {
    await repo.insertKey(deps.db, {
      id,
      accountId,
      kind: 'personal',
      name: 'Personal key',
      keyHash: hashSecret(key),
      keyPreview: maskKey(key),
      createdBy: userId,
      expiresAt: null,
    });
    return key;
  } catch (error) {
    // A concurrent first request created it: use that one.
    const winner = await repo.findPersonalKey(deps.db, accountId, userId);
    if (winner) return derivePersonalKey(deps.secret, winner.id);
    throw error;
  }
}

/**
 * Deletes every key the person made in the account (their removal from it),
 * or only their personal key: each is refused at once, and what it opened ends.
 */
export async function deleteKeysMadeBy(
  deps: KeysDeps,
  accountId: string,
  userId: string,
  kind?: 'personal',
): Promise<void> {
  const removed = await repo.deleteKeysMadeBy(deps.db, accountId, userId, kind);
  deps.credentialsChanged(removed.map((id) => ({ kind: 'api_key' as const, id })));
}

/**
 * A space's deletion, inside its transaction (`trx`): every key with a grant
 * on it is deleted, so a later space of the same slug is not theirs and what
 * they opened ends (decision 039). Returns the announcement to make once the
 * transaction commits (made before, a node could cache the row again).
 */
export async function deleteSpaceKeys(
  deps: KeysDeps,
  trx: Db,
  accountId: string,
  slug: string,
): Promise<() => void> {
  // Beside key creation and rolls, so a key made or rolled meanwhile is not missed.
  await repo.lockAccountKeys(trx, accountId);
  const removed = await repo.deleteKeysNaming(trx, accountId, [
    spacePermission(slug, 'read'),
    spacePermission(slug, 'write'),
  ]);
  return () => deps.credentialsChanged(removed.map((id) => ({ kind: 'api_key' as const, id })));
}

/** Replaces the personal key; the old one is refused at once, and what it opened ends. */
export async function regeneratePersonalKey(deps: KeysDeps, auth: AuthContext): Promise<string> {
  requireFullAccess(auth);
  await deleteKeysMadeBy(deps, auth.accountId, auth.userId, 'personal');
  return personalKey(deps, auth.accountId, auth.userId);
}

/** What other features and the adapters call: the functions above with their deps given. */
export function createKeysService(deps: KeysDeps) {
  return {
    /** Key usage counted in memory; `flush` writes it (tests, exact lists). */
    usage: deps.usage,
    ...bindService(deps, {
      listKeys,
      createKey,
      rollKey,
      deleteKey,
      liveKeyCount,
      keyStatus,
      authenticateApiKey,
      personalKey,
      regeneratePersonalKey,
      deleteKeysMadeBy,
      deleteSpaceKeys,
    }),
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
