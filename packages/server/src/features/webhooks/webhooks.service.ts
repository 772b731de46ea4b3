import {
  UNLIMITED,
  WEBHOOK_PING_EVENT,
  WEBHOOK_ROTATION_OVERLAP_HOURS,
  type CreatedWebhook,
  type CreateWebhookInput,
  type RotatedWebhookSecret,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookDelivery,
  type WebhookDeliveryList,
} from '@engram/shared';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import { decodeCursor, pageOf } from '../../lib/cursor.js';
import { badRequest, conflict, notFound, planLimit, tooManyRequests } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { requireFullAccess, requireRole } from '../../lib/space-access.js';
import type { Entitlements } from '../entitlements/index.js';
import { bindService } from '../feature.js';
import type { SpacesService } from '../spaces/index.js';
import { holdName, outsidePlan, resultOf, type DispatchDeps } from './webhook-dispatcher.js';
import { changeBody, deliveryHeaders, pingBody } from './webhook-event.js';
import { refusedTarget, sendWebhook } from './webhook-sender.js';
import { newWebhookSecret } from './webhook-signature.js';
import * as repo from './webhooks.repository.js';

export interface WebhooksDeps extends Omit<DispatchDeps, 'node'> {
  /** Read inside the creation's transaction (PGlite's one connection). */
  entitlements: Pick<Entitlements, 'planOf'>;
  spaces: Pick<SpacesService, 'resolveSpace'>;
  /** Wakes the dispatcher: an endpoint may have work now. */
  nudge: () => void;
}

const HOUR_MS = 60 * 60_000;

const toWebhook = (row: repo.EndpointRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  space: row.space,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  failingSince: row.failing_since?.toISOString() ?? null,
  nextRetryAt: row.retry_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
});

const toDelivery = (row: repo.DeliveryRow): WebhookDelivery => ({
  id: row.id,
  eventId: row.event_id,
  event: row.event_type,
  seq: row.seq === null ? null : Number(row.seq),
  status: row.status,
  statusCode: row.status_code,
  durationMs: row.duration_ms,
  attempt: row.attempt,
  nextRetryAt: row.next_retry_at?.toISOString() ?? null,
  error: row.error,
  responseExcerpt: row.response_excerpt,
  manual: row.manual,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** 400 naming `body.url` (as the body's validation does) when the endpoint may not be sent to (scheme, credentials, a private address). */
function checkTarget(deps: WebhooksDeps, url: string): void {
  const refused = refusedTarget(new URL(url), deps.send.allowPrivateNetwork);
  if (refused) throw badRequest('body.url', refused);
}

/** Endpoints send the account's changes out: owners and admins manage them, with full access. */
function requireWebhookManager(auth: AuthContext): void {
  requireFullAccess(auth);
  requireRole(auth, 'admin', 'manage webhooks');
}

async function endpointOf(deps: WebhooksDeps, auth: AuthContext, id: string) {
  requireWebhookManager(auth);
  const row = isUuid(id) ? await repo.findEndpoint(deps.db, auth.accountId, id) : undefined;
  if (!row) throw notFound('Webhook');
  return row;
}

export async function listWebhooks(deps: WebhooksDeps, auth: AuthContext) {
  requireWebhookManager(auth);
  return { webhooks: (await repo.listEndpoints(deps.db, auth.accountId)).map(toWebhook) };
}

export async function getWebhook(deps: WebhooksDeps, auth: AuthContext, id: string) {
  return toWebhook(await endpointOf(deps, auth, id));
}

/** Endpoints the account has, for the dashboard's count. */
export async function webhookCount(deps: WebhooksDeps, accountId: string): Promise<number> {
  return repo.countEndpoints(deps.db, accountId);
}

/**
 * Adds an endpoint within the plan's limit (counted under a lock of the
 * account's endpoints, so concurrent creations never overshoot it). It hears
 * what happens from now on: its position is the log's last seq, held.
 */
export async function createWebhook(
  deps: WebhooksDeps,
  auth: AuthContext,
  input: CreateWebhookInput & { events: string[] },
): Promise<CreatedWebhook> {
  requireWebhookManager(auth);
  checkTarget(deps, input.url);
  const space = input.space
    ? (await deps.spaces.resolveSpace(auth, input.space, 'read')).space
    : undefined;
  const secret = newWebhookSecret();
  // Read before the transaction (which has PGlite to itself): a change made meanwhile is sent too.
  const { latest } = await deps.changeLog.changeLogBounds(auth.accountId);
  const id = await deps.db.transaction().execute(async (trx) => {
    await repo.lockAccountWebhooks(trx, auth.accountId);
    const plan = await deps.entitlements.planOf(auth.accountId, deps.now(), trx);
    const limit = plan.features.maxWebhooks;
    if (limit === 0) {
      throw planLimit(
        `Your ${plan.name} plan does not include webhook endpoints; upgrade to add one`,
      );
    }
    if (limit !== UNLIMITED && (await repo.countEndpoints(trx, auth.accountId)) >= limit) {
      throw planLimit(
        `Your ${plan.name} plan allows ${limit.toLocaleString('en-US')} webhook endpoints; delete one or upgrade your plan`,
      );
    }
    return repo.insertEndpoint(trx, {
      accountId: auth.accountId,
      spaceId: space?.id ?? null,
      url: input.url,
      events: input.events,
      description: input.description || null,
      secret,
      deliveredSeq: latest,
    });
  });
  const row = (await repo.findEndpoint(deps.db, auth.accountId, id))!;
  await deps.changeLog.holdChangeLog(auth.accountId, holdName(id), Number(row.delivered_seq));
  return { ...toWebhook(row), secret };
}

/**
 * Changes an endpoint. Turning it off releases its hold on the log; turning
 * it on again resumes where it stopped, or from the oldest event still kept
 * when the log was compacted past that meanwhile.
 */
export async function updateWebhook(
  deps: WebhooksDeps,
  auth: AuthContext,
  id: string,
  input: UpdateWebhookInput & { events?: string[] | undefined },
): Promise<Webhook> {
  const row = await endpointOf(deps, auth, id);
  if (input.url !== undefined) checkTarget(deps, input.url);
  const changes: Parameters<typeof repo.updateEndpoint>[3] = {
    // A new URL is tried at once, not after the old one's backoff.
    ...(input.url !== undefined ? { url: input.url, retry_at: null } : {}),
    ...(input.events !== undefined ? { events: input.events } : {}),
    ...(input.description !== undefined ? { description: input.description || null } : {}),
  };
  if (input.enabled === true && !row.enabled) {
    const refused = await outsidePlan(deps, row);
    if (refused) throw planLimit(`${refused} first.`);
    const { compactedThrough } = await deps.changeLog.changeLogBounds(auth.accountId);
    const from = Math.max(Number(row.delivered_seq), compactedThrough);
    await deps.changeLog.holdChangeLog(auth.accountId, holdName(row.id), from);
    Object.assign(changes, {
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      retry_at: null,
      delivered_seq: from,
    });
  } else if (input.enabled === false && row.enabled) {
    Object.assign(changes, { enabled: false, disabled_reason: null, retry_at: null });
  }
  if (!(await repo.updateEndpoint(deps.db, auth.accountId, row.id, changes))) {
    throw notFound('Webhook');
  }
  if (changes.enabled === false) {
    await deps.changeLog.releaseChangeLog(auth.accountId, holdName(row.id));
  }
  deps.nudge();
  return toWebhook((await repo.findEndpoint(deps.db, auth.accountId, row.id))!);
}

export async function deleteWebhook(deps: WebhooksDeps, auth: AuthContext, id: string) {
  const row = await endpointOf(deps, auth, id);
  if (!(await repo.deleteEndpoint(deps.db, auth.accountId, row.id))) throw notFound('Webhook');
  await deps.changeLog.releaseChangeLog(auth.accountId, holdName(row.id));
}

/** A new secret; the previous one keeps signing beside it for a day, so receivers can switch. */
export async function rotateSecret(
  deps: WebhooksDeps,
  auth: AuthContext,
  id: string,
): Promise<RotatedWebhookSecret> {
  const row = await endpointOf(deps, auth, id);
  const secret = newWebhookSecret();
  const until = new Date(deps.now().getTime() + WEBHOOK_ROTATION_OVERLAP_HOURS * HOUR_MS);
  await repo.updateEndpoint(deps.db, auth.accountId, row.id, {
    secret,
    previous_secret: row.secret,
    previous_secret_until: until,
  });
  return { secret, previousSecretExpiresAt: until.toISOString() };
}

/** Test sends and redeliveries one account may have in flight at once (on one node). */
export const MANUAL_SENDS_AT_ONCE = 5;
const manualInFlight = new Map<string, number>();

/**
 * Sends one body now, outside the endpoint's queue, and records it as a
 * manual delivery. A person waits for it, so an account may have only a few
 * in flight: the server is not a tool for sending many requests elsewhere.
 */
async function sendNow(
  deps: WebhooksDeps,
  endpoint: repo.EndpointRow,
  body: ReturnType<typeof pingBody>,
  seq: number | null,
): Promise<WebhookDelivery> {
  const account = endpoint.account_id;
  const inFlight = manualInFlight.get(account) ?? 0;
  if (inFlight >= MANUAL_SENDS_AT_ONCE) {
    throw tooManyRequests('Too many test sends and redeliveries at once; try again shortly', 5);
  }
  manualInFlight.set(account, inFlight + 1);
  try {
    return await recordedSend(deps, endpoint, body, seq);
  } finally {
    const left = (manualInFlight.get(account) ?? 1) - 1;
    if (left === 0) manualInFlight.delete(account);
    else manualInFlight.set(account, left);
  }
}

async function recordedSend(
  deps: WebhooksDeps,
  endpoint: repo.EndpointRow,
  body: ReturnType<typeof pingBody>,
  seq: number | null,
): Promise<WebhookDelivery> {
  const delivery = await repo.insertManualDelivery(deps.db, {
    accountId: endpoint.account_id,
    endpointId: endpoint.id,
    eventId: body.id,
    eventType: body.type,
    seq,
  });
  const text = JSON.stringify(body);
  const attempt = await sendWebhook(
    endpoint.url,
    text,
    deliveryHeaders(endpoint, text, body, deps.now()),
    deps.send,
  );
  const finished = await repo.finishDelivery(deps.db, delivery.id, {
    ...resultOf(attempt),
    status: attempt.outcome === 'succeeded' ? 'succeeded' : 'failed',
    nextRetryAt: null,
  });
  return toDelivery(finished);
}

/** A `ping` sent now (enabled or not), answered with how it went. */
export async function testWebhook(deps: WebhooksDeps, auth: AuthContext, id: string) {
  const endpoint = await endpointOf(deps, auth, id);
  return sendNow(deps, endpoint, pingBody(`ping_${randomUUID()}`, endpoint, deps.now()), null);
}

const deliveryCursor = z.object({ createdAt: z.string().datetime(), id: z.string().uuid() });

export async function listDeliveries(
  deps: WebhooksDeps,
  auth: AuthContext,
  id: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<WebhookDeliveryList> {
  const endpoint = await endpointOf(deps, auth, id);
  const before = query.cursor ? decodeCursor(query.cursor, deliveryCursor) : undefined;
  const rows = await repo.listDeliveries(deps.db, auth.accountId, endpoint.id, {
    limit: query.limit + 1,
    before,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (last) => ({
    createdAt: last.created_at.toISOString(),
    id: last.id,
  }));
  return { deliveries: page.map(toDelivery), nextCursor };
}

/**
 * Sends a delivery's event again now, as a new manual delivery with the same
 * event id. A change's event is read from the log: once compacted, it is gone.
 */
export async function redeliver(
  deps: WebhooksDeps,
  auth: AuthContext,
  id: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const endpoint = await endpointOf(deps, auth, id);
  const delivery = isUuid(deliveryId)
    ? await repo.findDelivery(deps.db, auth.accountId, endpoint.id, deliveryId)
    : undefined;
  if (!delivery) throw notFound('Delivery');
  if (delivery.seq === null || delivery.event_type === WEBHOOK_PING_EVENT) {
    return sendNow(deps, endpoint, pingBody(delivery.event_id, endpoint, deps.now()), null);
  }
  const seq = Number(delivery.seq);
  const page = await deps.changeLog.changesAfter({ accountId: auth.accountId }, seq - 1, 1);
  const event = page.events[0];
  if (!event || event.seq !== seq) {
    throw conflict('This event is no longer kept: it is past your plan’s change log retention');
  }
  return sendNow(deps, endpoint, changeBody(event), seq);
}

/** The webhooks, as the routes call them (the database stays inside). */
export function createWebhooksService(deps: WebhooksDeps & { db: Db }) {
  return bindService(deps, {
    listWebhooks,
    getWebhook,
    webhookCount,
    createWebhook,
    updateWebhook,
    deleteWebhook,
    rotateSecret,
    testWebhook,
    listDeliveries,
    redeliver,
  });
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
