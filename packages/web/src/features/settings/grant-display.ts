import { formatDate } from '@/lib/format';

const SCOPE_LABELS: Record<string, string> = { 'memory:read': 'Read', 'memory:write': 'Write' };

/** 'memory:read' → 'Read', 'memory:write' → 'Write'; a scope unknown here is shown as sent. */
export function scopeLabel(scope: string): string {
  return SCOPE_LABELS[scope] ?? scope;
}

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * When a connected app last used its access: 'never', 'just now', '5 minutes
 * ago', 'yesterday', '3 weeks ago'…, and the date itself after a month.
 */
export function lastUsedLabel(iso: string | null, now: Date = new Date()): string {
  if (iso === null) return 'never';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const ago = Math.max(0, now.getTime() - at.getTime());
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return relative.format(-Math.floor(ago / MINUTE), 'minute');
  if (ago < DAY) return relative.format(-Math.floor(ago / HOUR), 'hour');
  if (ago < 7 * DAY) return relative.format(-Math.floor(ago / DAY), 'day');
  if (ago < 30 * DAY) return relative.format(-Math.floor(ago / (7 * DAY)), 'week');
  return formatDate(iso);
}
