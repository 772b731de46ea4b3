import {
  UNLIMITED,
  WEBHOOK_ALL_EVENTS,
  WEBHOOK_EVENT_TYPES,
  type DeliveryStatus,
  type Webhook,
  type WebhookDelivery,
} from '@engram/shared';
import type { BadgeProps } from '@/components/ui/badge';
import { ApiError } from '@/lib/api-client';
import { formatCount, pluralize } from '@/lib/format';

/** 'Every event' for `*`, else the names it hears, as the server keeps them. */
export function eventsLabel(events: readonly string[]): string {
  if (events.includes(WEBHOOK_ALL_EVENTS)) return 'All events';
  return events.join(', ');
}

/** The events picked in the form, as the body's `events`: `*` when every one is, so later types come too. */
export function eventsToSend(all: boolean, picked: readonly string[]): string[] {
  if (all) return [WEBHOOK_ALL_EVENTS];
  // In the catalog's order, whatever order they were ticked in.
  return WEBHOOK_EVENT_TYPES.filter((type) => picked.includes(type));
}

/** '2 of 5 endpoints', '3 endpoints · Unlimited' (a limit of -1), for the card's header. */
export function limitLabel(count: number, limit: number): string {
  if (limit === UNLIMITED) return `${pluralize(count, 'endpoint')} · Unlimited`;
  return `${formatCount(count)} of ${formatCount(limit)} ${limit === 1 ? 'endpoint' : 'endpoints'}`;
}

/** Whether another endpoint would pass the plan's limit (the server answers 402 then). */
export function atLimit(count: number, limit: number | undefined): boolean {
  return limit !== undefined && limit !== UNLIMITED && count >= limit;
}

export type EndpointState = 'active' | 'failing' | 'disabled' | 'turned-off';

/**
 * How an endpoint stands: sending; sending but failing since some time;
 * disabled by a person; or turned off by Engram (`disabledReason` says why).
 */
export function endpointState(
  webhook: Pick<Webhook, 'enabled' | 'disabledReason' | 'failingSince'>,
): EndpointState {
  if (!webhook.enabled) return webhook.disabledReason ? 'turned-off' : 'disabled';
  return webhook.failingSince ? 'failing' : 'active';
}

export const ENDPOINT_BADGE: Record<
  EndpointState,
  { label: string; variant: NonNullable<BadgeProps['variant']> }
> = {
  active: { label: 'Enabled', variant: 'success' },
  failing: { label: 'Failing', variant: 'warning' },
  disabled: { label: 'Disabled', variant: 'neutral' },
  'turned-off': { label: 'Turned off', variant: 'danger' },
};

export const DELIVERY_BADGE: Record<
  DeliveryStatus,
  { label: string; variant: NonNullable<BadgeProps['variant']> }
> = {
  succeeded: { label: 'Succeeded', variant: 'success' },
  failed: { label: 'Failed', variant: 'danger' },
  retrying: { label: 'Retrying', variant: 'warning' },
  pending: { label: 'Pending', variant: 'neutral' },
};

/** 84 → '84 ms', 1234 → '1.2 s'; null (no answer timed) → '—'. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${formatCount(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

const logTime = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
});

/** 'Nov 25, 3:04:12 PM' (local time): a log's rows are seconds apart. */
export function formatLogTime(iso: string): string {
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? iso : logTime.format(value);
}

/** 'in 40 s', 'in 5 min', 'in 2 h', or the time itself when it is further off or past. */
export function formatNextRetry(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds <= 0) return 'now';
  if (seconds < 60) return `in ${seconds} s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `in ${Math.round(seconds / 3600)} h`;
  return formatLogTime(iso);
}

/** A failed call's message when the server explained it, else the fallback. */
export { errorMessage } from '@/lib/api-client';

/** The server's message for one field of a 400 (`url`, `events`), to show under that field. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError ? error.detailFor(field) : undefined;
}

/** 'Delivered: 200 in 84 ms' or 'Failed: connection refused', for the toast after a send. */
export function sentSummary(delivery: WebhookDelivery): string {
  if (delivery.status === 'succeeded') {
    return `Delivered: ${delivery.statusCode ?? 'OK'} in ${formatDuration(delivery.durationMs)}`;
  }
  const why =
    delivery.error ?? (delivery.statusCode !== null ? `HTTP ${delivery.statusCode}` : 'no answer');
  return `Failed: ${why}`;
}
