import {
  WEBHOOK_ALL_EVENTS,
  WEBHOOK_PING_EVENT,
  WEBHOOK_ROTATION_OVERLAP_HOURS,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookEventBody,
} from '@engram/shared';
import type { ChangeEvent } from '../../lib/change-event.js';
import { signatureHeader } from './webhook-signature.js';
import type { EndpointRow } from './webhooks.repository.js';

export { WEBHOOK_ROTATION_OVERLAP_HOURS };

/** An event's id: the same on every attempt and redelivery, so receivers can drop repeats. */
export const eventIdOf = (accountId: string, seq: number) => `evt_${accountId}_${seq}`;

/** Whether the endpoint hears this change: its space (or every space) and its event types. */
export function hears(endpoint: Pick<EndpointRow, 'events' | 'space_id'>, event: ChangeEvent) {
  if (endpoint.space_id && endpoint.space_id !== event.spaceId) return false;
  return endpoint.events.includes(WEBHOOK_ALL_EVENTS) || endpoint.events.includes(event.type);
}

export function changeBody(event: ChangeEvent): WebhookEventBody {
  return {
    id: eventIdOf(event.accountId, event.seq),
    type: event.type,
    createdAt: event.at,
    accountId: event.accountId,
    space: event.space,
    data: event.payload,
  };
}

export function pingBody(
  eventId: string,
  endpoint: Pick<EndpointRow, 'id' | 'account_id'>,
  at: Date,
): WebhookEventBody {
  return {
    id: eventId,
    type: WEBHOOK_PING_EVENT,
    createdAt: at.toISOString(),
    accountId: endpoint.account_id,
    data: { webhookId: endpoint.id, message: 'A test event from Engram' },
  };
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  endpoint: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_until'>,
  now: Date,
): string[] {
  const previousLives =
    endpoint.previous_secret &&
    endpoint.previous_secret_until &&
    endpoint.previous_secret_until > now;
  return previousLives ? [endpoint.secret, endpoint.previous_secret!] : [endpoint.secret];
}

/** The request's headers: JSON, the signature, and the event's id and type for routing without parsing. */
export function deliveryHeaders(
  endpoint: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_until'>,
  body: string,
  event: WebhookEventBody,
  now: Date,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Engram-Webhooks/1',
    'engram-event': event.type,
    'engram-event-id': event.id,
    [WEBHOOK_SIGNATURE_HEADER.toLowerCase()]: signatureHeader(
      body,
      signingSecrets(endpoint, now),
      now,
    ),
  };
}
