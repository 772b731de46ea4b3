import { timeAgo } from '@/lib/format';

const SCOPE_LABELS: Record<string, string> = { 'memory:read': 'Read', 'memory:write': 'Write' };

/** 'memory:read' → 'Read', 'memory:write' → 'Write'; a scope unknown here is shown as sent. */
export function scopeLabel(scope: string): string {
  return SCOPE_LABELS[scope] ?? scope;
}

/**
 * When a connected app last used its access: 'never', 'just now', '5 minutes
 * ago', 'yesterday', '3 weeks ago'…, and the date itself after a month.
 */
export function lastUsedLabel(iso: string | null, now: Date = new Date()): string {
  return iso === null ? 'never' : timeAgo(iso, now);
}
