import { maskKey, type ApiKey } from '@engram/shared';
import { ApiError } from '@/lib/api-client';

export type KeyState = 'expired' | 'expiring-soon' | 'active';

/** Spec §4: active, expiring soon or expired, as the server judged it. */
export function keyStateOf(key: Pick<ApiKey, 'isExpired' | 'isExpiringSoon'>): KeyState {
  if (key.isExpired) return 'expired';
  if (key.isExpiringSoon) return 'expiring-soon';
  return 'active';
}

/**
 * What the card shows in place of the key: the full key masked to its first
 * 6 and last 4 characters when this session knows it, else the server's
 * preview (masked the same way when the key was issued).
 */
export function maskedPreview(key: Pick<ApiKey, 'keyPreview'>, secret?: string): string {
  return secret === undefined ? key.keyPreview : maskKey(secret);
}

const dateFormat = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
});
const dateTimeFormat = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});
const countFormat = new Intl.NumberFormat('en-US');

/** '2027-01-05T10:00:00Z' → 'Jan 5, 2027'. */
export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

/** '2027-01-05T15:04:00Z' → 'Jan 5, 2027, 3:04 PM' (local time). */
export function formatDateTime(iso: string): string {
  return dateTimeFormat.format(new Date(iso));
}

export function formatCount(count: number): string {
  return countFormat.format(count);
}

/**
 * Spec §8: the thrown message, else the screen's fallback. A message is
 * shown when the server explained itself (e.g. the 402 plan limit); network
 * failures and unreadable answers get the fallback.
 */
export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.body ? error.message : fallback;
}
