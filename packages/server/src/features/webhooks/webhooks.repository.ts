import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import { planOnce } from '../../db/prepared.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema.js';

export type EndpointRow = Selectable<WebhookEndpointsTable> & { space: string | null };
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

const endpointColumns = [
  'e.id',
  'e.account_id',
  'e.space_id',
  'e.url',
  'e.events',
  'e.description',
  'e.secret',
  'e.previous_secret',
  'e.previous_secret_until',
  'e.enabled',
  'e.disabled_reason',
  sql<string>`e.delivered_seq::text`.as('delivered_seq'),
  'e.retry_at',
  'e.failing_since',
  'e.lease_holder',
  'e.lease_until',
  'e.created_at',
  'e.updated_at',
  's.slug as space',
] as const;

function endpoints(db: Db) {
  return db
    .selectFrom('webhook_endpoints as e')
    .leftJoin('spaces as s', 's.id', 'e.space_id')
    .select(endpointColumns);
}

export async function listEndpoints(db: Db, accountId: string): Promise<EndpointRow[]> {
  return endpoints(db)
    .where('e.account_id', '=', accountId)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
}

export async function findEndpoint(
  db: Db,
  accountId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  return endpoints(db)
    .where('e.account_id', '=', accountId)
    .where('e.id', '=', id)
    .executeTakeFirst();
}

/** How many of the account's endpoints were made before this one (the plan keeps the oldest). */
export async function endpointsBefore(db: Db, accountId: string, id: string): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::int as n from webhook_endpoints e, webhook_endpoints me
     where me.id = ${id} and e.account_id = ${accountId} and me.account_id = ${accountId}
       and (e.created_at, e.id) < (me.created_at, me.id)
  `.execute(db);
  return result.rows[0]?.n ?? 0;
}

export async function countEndpoints(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertEndpoint(
  db: Db,
  values: {
    accountId: string;
    spaceId: string | null;
    url: string;
    events: string[];
    description: string | null;
    secret: string;
    deliveredSeq: number;
  },
): Promise<string> {
  const row = await db
    .insertInto('webhook_endpoints')
    .values({
      account_id: values.accountId,
      space_id: values.spaceId,
      url: values.url,
      events: values.events,
      description: values.description,
      secret: values.secret,
      delivered_seq: values.deliveredSeq,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateEndpoint(
  db: Db,
  accountId: string,
  id: string,
  changes: Partial<{
    url: string;
    events: string[];
    description: string | null;
    enabled: boolean;
    disabled_reason: string | null;
    failing_since: Date | null;
    retry_at: Date | null;
    delivered_seq: number;
    secret: string;
    previous_secret: string | null;
    previous_secret_until: Date | null;
  }>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ ...changes, updated_at: sql`now()` })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteEndpoint(db: Db, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Enabled endpoints with events after their position, not waiting for a
 * retry and not leased by a node now: the ones a delivery pass may take
 * (the lease itself: follower/leases.repository.ts).
 */
export async function dueEndpoints(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ id: string; accountId: string }[]> {
  const result = await sql<{ id: string; account_id: string }>`
    ${planOnce} select e.id, e.account_id from webhook_endpoints e
      join accounts a on a.id = e.account_id and a.deleted_at is null
     where e.enabled and e.delivered_seq < a.event_seq
       and (e.retry_at is null or e.retry_at <= ${now}::timestamptz)
       and (e.lease_until is null or e.lease_until < now())
     order by e.lease_until nulls first, e.id
     limit ${limit}
  `.execute(db);
  return result.rows.map((row) => ({ id: row.id, accountId: row.account_id }));
}

/**
 * Records progress while `node` holds the endpoint (and renews its lease):
 * false when it no longer does — its lease lapsed to another node, or the
 * endpoint was disabled or deleted — and the pass must stop.
 */
export async function advanceEndpoint(
  db: Db,
  id: string,
  node: string,
  leaseMs: number,
  changes: {
    deliveredSeq?: number;
    retryAt?: Date | null;
    failingSince?: Date | null;
    disabledReason?: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({
      ...(changes.deliveredSeq !== undefined
        ? { delivered_seq: sql`greatest(delivered_seq, ${changes.deliveredSeq})` }
        : {}),
      ...(changes.retryAt !== undefined ? { retry_at: changes.retryAt } : {}),
      // A run of failures keeps the time it began; a success ends it.
      ...(changes.failingSince === null
        ? { failing_since: null }
        : changes.failingSince
          ? { failing_since: sql`coalesce(failing_since, ${changes.failingSince}::timestamptz)` }
          : {}),
      ...(changes.disabledReason !== undefined
        ? { enabled: false, disabled_reason: changes.disabledReason, lease_until: null }
        : { lease_until: sql`now() + ${leaseMs} * interval '1 millisecond'` }),
    })
    .where('id', '=', id)
    .where('lease_holder', '=', node)
    .where('enabled', '=', true)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The delivery row of an event for an endpoint, its attempt counted: made on
 * the first attempt, the same row on every retry.
 */
export async function startDelivery(
  db: Db,
  values: {
    accountId: string;
    endpointId: string;
    eventId: string;
    eventType: string;
    seq: number;
  },
): Promise<DeliveryRow> {
  const result = await sql<DeliveryRow>`
    insert into webhook_deliveries (account_id, endpoint_id, event_id, event_type, seq, status, attempt)
    values (${values.accountId}, ${values.endpointId}, ${values.eventId}, ${values.eventType},
            ${values.seq}, 'pending', 1)
    on conflict (endpoint_id, seq) where not manual
      do update set attempt = webhook_deliveries.attempt + 1, updated_at = now()
    returning *
  `.execute(db);
  return result.rows[0]!;
}

/** A test send or a redelivery: its own row, attempted once. */
export async function insertManualDelivery(
  db: Db,
  values: {
    accountId: string;
    endpointId: string;
    eventId: string;
    eventType: string;
    seq: number | null;
  },
): Promise<DeliveryRow> {
  return db
    .insertInto('webhook_deliveries')
    .values({
      account_id: values.accountId,
      endpoint_id: values.endpointId,
      event_id: values.eventId,
      event_type: values.eventType,
      seq: values.seq,
      status: 'pending',
      attempt: 1,
      manual: true,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function finishDelivery(
  db: Db,
  id: string,
  result: {
    status: DeliveryRow['status'];
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    excerpt: string | null;
    nextRetryAt: Date | null;
  },
): Promise<DeliveryRow> {
  return db
    .updateTable('webhook_deliveries')
    .set({
      status: result.status,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error,
      response_excerpt: result.excerpt,
      next_retry_at: result.nextRetryAt,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A page of an endpoint's deliveries, newest first, after the `(created_at, id)` cursor. */
export async function listDeliveries(
  db: Db,
  accountId: string,
  endpointId: string,
  page: { limit: number; before?: { createdAt: string; id: string } | undefined },
): Promise<DeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId);
  if (page.before) {
    const { createdAt, id } = page.before;
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', new Date(createdAt)),
        eb.and([eb('created_at', '=', new Date(createdAt)), eb('id', '<', id)]),
      ]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

export async function findDelivery(
  db: Db,
  accountId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Serialises creating endpoints per account (a lock of its own, not the row graph writes take). */
export async function lockAccountWebhooks(db: Db, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`webhooks:${accountId}`}, 0))`.execute(
    db,
  );
}

/**
 * Removes up to `batch` deliveries: successful ones older than
 * `succeededBefore`, the rest older than `before`. Returns how many went.
 */
export async function pruneDeliveries(
  db: Db,
  succeededBefore: Date,
  before: Date,
  batch: number,
): Promise<number> {
  const result = await sql<{ n: number }>`
    with gone as (
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries
         where created_at < ${before}::timestamptz
            or (status = 'succeeded' and created_at < ${succeededBefore}::timestamptz)
         limit ${batch}
      ) returning 1
    )
    select count(*)::int as n from gone
  `.execute(db);
  return result.rows[0]?.n ?? 0;
}
