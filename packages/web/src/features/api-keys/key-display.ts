import { maskKey, type ApiKey } from '@engram/shared';

export { formatCount, formatDate, formatDateTime } from '@/lib/format';

export type KeyState = 'expired' | 'expiring-soon' | 'active';

/** Active, expiring soon or expired, as the server judged it (docs/product.md, States). */
export function keyStateOf(key: Pick<ApiKey, 'isExpired' | 'isExpiringSoon'>): KeyState {
  if (key.isExpired) return 'expired';
  if (key.isExpiringSoon) return 'expiring-soon';
  return 'active';
}

/** The other keys of a roll, as listed: the card of each names the other. */
export interface KeyRoll {
  /** The key this one was rolled into; undefined when there is none or it was deleted. */
  replacedBy?: ApiKey | undefined;
  /** The key this one replaced, while it is still listed. */
  replaces?: ApiKey | undefined;
}

/**
 * A roll leaves two keys of one name: the card of each says which it is, by
 * the other key's preview and the date of the roll.
 */
export function rollOf(
  key: Pick<ApiKey, 'replacedById' | 'replacesId'>,
  keys: readonly ApiKey[],
): KeyRoll {
  const find = (id: string | null) => (id === null ? undefined : keys.find((k) => k.id === id));
  return { replacedBy: find(key.replacedById), replaces: find(key.replacesId) };
}

/**
 * Whether the person may roll the key: only its maker, since the new secret
 * acts as them (docs/product.md, API keys). Owners and admins see and delete
 * every key, and the server refuses their roll of another's (403).
 */
export function mayRoll(key: Pick<ApiKey, 'createdBy'>, userId: string | undefined): boolean {
  return userId !== undefined && key.createdBy.id === userId;
}

/**
 * What the card shows in place of the key: the full key masked to its first
 * 6 and last 4 characters when this session knows it, else the server's
 * preview (masked the same way when the key was issued).
 */
export function maskedPreview(key: Pick<ApiKey, 'keyPreview'>, secret?: string): string {
  return secret === undefined ? key.keyPreview : maskKey(secret);
}

/** A failed call's message when the server explained it, else the fallback. */
export { errorMessage } from '@/lib/api-client';

/**
 * Whether the plan's key limit is reached (docs/product.md, Plans), so Create
 * is held back before the form is filled in. Expired keys do not count, as
 * the server counts; a member sees only their own keys, so a list under the
 * limit may still be refused (the dialog then shows the server's reason).
 * -1 is unlimited; an unknown limit never holds the button back.
 */
export function keyLimitReached(
  keys: readonly Pick<ApiKey, 'isExpired'>[] | undefined,
  maxApiKeys: number | undefined,
): boolean {
  if (keys === undefined || maxApiKeys === undefined || maxApiKeys < 0) return false;
  return keys.filter((key) => !key.isExpired).length >= maxApiKeys;
}

/** The note beside a held-back Create button. */
export function keyLimitNote(maxApiKeys: number, planName: string): string {
  const keys = maxApiKeys === 1 ? 'API key' : 'API keys';
  return `Your ${planName} plan allows ${maxApiKeys} ${keys}. Delete a key or upgrade your plan to create another.`;
}
