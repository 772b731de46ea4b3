import { z } from 'zod';
import { text } from './common.js';
import { GRAPH_EVENT_TYPES } from './realtime.js';
import { spaceSlug } from './spaces.js';

/**
 * Outbound webhooks (docs/webhooks.md): an endpoint hears the graph events the
 * realtime feed carries — every type, or the ones it lists — in one space or
 * in all of them, each as a signed JSON POST.
 */
export const WEBHOOK_EVENT_TYPES = GRAPH_EVENT_TYPES;
/** Every event type, now and later. */
export const WEBHOOK_ALL_EVENTS = '*';
/** The event a test send carries; never in the change log. */
export const WEBHOOK_PING_EVENT = 'ping';
export const WEBHOOK_SIGNATURE_HEADER = 'Engram-Signature';
/** A receiver refuses a signature whose `t` is further than this from its clock. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
/** After a rotation the previous secret also signs, as a second `v1`, this long. */
export const WEBHOOK_ROTATION_OVERLAP_HOURS = 24;
export const WEBHOOK_URL_MAX = 2048;

const eventName = z
  .string()
  .refine(
    (name) =>
      name === WEBHOOK_ALL_EVENTS || (WEBHOOK_EVENT_TYPES as readonly string[]).includes(name),
    { message: `Events must be "*" or among: ${WEBHOOK_EVENT_TYPES.join(', ')}` },
  );

export const webhookEvents = z
  .array(eventName, { error: 'Events must be a list' })
  .min(1, 'Choose at least one event')
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .transform((events) =>
    events.includes(WEBHOOK_ALL_EVENTS) ? [WEBHOOK_ALL_EVENTS] : [...new Set(events)],
  );

export const webhookUrl = text('URL is required')
  .trim()
  .min(1, 'URL is required')
  .max(WEBHOOK_URL_MAX, `URL must be at most ${WEBHOOK_URL_MAX} characters`)
  .refine((value) => URL.canParse(value), 'URL must be an absolute http(s) URL');

const description = text().trim().max(200, 'Description must be at most 200 characters');

export const createWebhookInput = z.object({
  url: webhookUrl,
  events: webhookEvents,
  description: description.optional(),
  /** Only this space's events (its slug); without it, every space's. */
  space: spaceSlug.optional(),
});
export type CreateWebhookInput = z.input<typeof createWebhookInput>;

export const updateWebhookInput = z
  .object({
    url: webhookUrl.optional(),
    events: webhookEvents.optional(),
    description: description.nullable().optional(),
    enabled: z.boolean({ error: 'Enabled must be true or false' }).optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    message: 'Nothing to change',
  });
export type UpdateWebhookInput = z.input<typeof updateWebhookInput>;

export const webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  /** The space it hears (slug), or null for every space. */
  space: z.string().nullable(),
  enabled: z.boolean(),
  /** Why Engram turned it off (it failed for a day), until it is enabled again. */
  disabledReason: z.string().nullable(),
  /** When its current run of failures began; null while deliveries succeed. */
  failingSince: z.string().nullable(),
  /** When its next event is tried again after a failure; null when nothing waits. */
  nextRetryAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Webhook = z.infer<typeof webhook>;

/** The secret appears only in the answers to create and rotate-secret. */
export const createdWebhook = webhook.extend({ secret: z.string() });
export type CreatedWebhook = z.infer<typeof createdWebhook>;

export const webhookList = z.object({ webhooks: z.array(webhook) });
export type WebhookList = z.infer<typeof webhookList>;

export const rotatedWebhookSecret = z.object({
  secret: z.string(),
  /** Until then the previous secret signs too. */
  previousSecretExpiresAt: z.string(),
});
export type RotatedWebhookSecret = z.infer<typeof rotatedWebhookSecret>;

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const webhookDelivery = z.object({
  id: z.string(),
  /** The `id` of the event sent (the same on every attempt and redelivery). */
  eventId: z.string(),
  /** The event's type, or "ping" for a test. */
  event: z.string(),
  /** The change log position of the event; null for a test. */
  seq: z.number().int().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  /** The last attempt's HTTP status; null when it got no answer. */
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  attempt: z.number().int(),
  nextRetryAt: z.string().nullable(),
  /** Why the last attempt failed (network error, timeout, refused address, status). */
  error: z.string().nullable(),
  /** The first characters of the answer's body. */
  responseExcerpt: z.string().nullable(),
  /** True for a test send or a redelivery asked for by a person. */
  manual: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

export const listDeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: text().max(500).optional(),
});

export const webhookDeliveryList = z.object({
  deliveries: z.array(webhookDelivery),
  nextCursor: z.string().nullable(),
});
export type WebhookDeliveryList = z.infer<typeof webhookDeliveryList>;

/** The body of every delivery. */
export interface WebhookEventBody {
  id: string;
  type: string;
  createdAt: string;
  accountId: string;
  /** The slug of the space the change happened in (absent on a test). */
  space?: string;
  data: unknown;
}
