import { UNLIMITED, type Plan } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { Follower, type Lease } from '../../follower/follower.js';
import type { LeaseTable } from '../../follower/leases.repository.js';
import { Scheduler } from '../../follower/scheduler.js';
import type { ChangeEvent } from '../../lib/change-event.js';
import type { HistoryService } from '../history/index.js';
import { changeBody, deliveryHeaders, eventIdOf, hears } from './webhook-event.js';
import { sendWebhook, type Attempt, type SendOptions } from './webhook-sender.js';
import * as repo from './webhooks.repository.js';

export interface DispatchTuning {
  /** How often a node looks for endpoints with events to deliver (a write on this node also wakes it). */
  pollMs: number;
  /** Endpoints a node delivers to at once: a slow one holds only its own slot. */
  concurrency: number;
  /**
   * A node's hold on an endpoint, renewed with every event it delivers: how
   * long a node that died mid-pass keeps others from taking over. Longer
   * than one send (DELIVERY_TIMEOUT_MS) with its statements.
   */
  leaseMs: number;
  /** A pass ends after this long so that other endpoints get their turn; the next one resumes. */
  passMs: number;
  /** The first retry's delay; each next one doubles, up to retryMaxMs, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** An endpoint failing this long is disabled. */
  failAfterMs: number;
  /** Deliveries older than this leave the log; successful ones after keepSucceededMs. */
  keepDeliveriesMs: number;
  keepSucceededMs: number;
  pageSize: number;
}

export const DEFAULT_DISPATCH: DispatchTuning = {
  pollMs: 1_000,
  concurrency: 16,
  leaseMs: 30_000,
  passMs: 30_000,
  retryBaseMs: 30_000,
  retryMaxMs: 60 * 60_000,
  failAfterMs: 24 * 60 * 60_000,
  keepDeliveriesMs: 30 * 24 * 60 * 60_000,
  keepSucceededMs: 7 * 24 * 60 * 60_000,
  pageSize: 100,
};

export interface DispatchDeps {
  db: Db;
  now: () => Date;
  changeLog: Pick<
    HistoryService,
    'changesAfter' | 'changeLogBounds' | 'holdChangeLog' | 'releaseChangeLog'
  >;
  send: SendOptions;
  /** The plan in force: its `maxWebhooks` says how many of an account's endpoints may deliver. */
  planOf: (accountId: string) => Promise<Plan>;
  /** This node's name in leases. */
  node: string;
}

/**
 * Why the plan in force does not cover this endpoint (an account over its
 * limit after a downgrade keeps its oldest endpoints), or undefined when it does.
 */
export async function outsidePlan(
  deps: Pick<DispatchDeps, 'db' | 'planOf'>,
  endpoint: Pick<repo.EndpointRow, 'id' | 'account_id'>,
): Promise<string | undefined> {
  const plan = await deps.planOf(endpoint.account_id);
  const limit = plan.features.maxWebhooks;
  if (limit === UNLIMITED) return undefined;
  if (limit === 0) return `Your ${plan.name} plan does not include webhook endpoints. Upgrade`;
  if ((await repo.endpointsBefore(deps.db, endpoint.account_id, endpoint.id)) < limit) {
    return undefined;
  }
  return `Your ${plan.name} plan includes ${limit.toLocaleString('en-US')} webhook endpoints and this one is newer than those. Upgrade, or delete another endpoint`;
}

export const holdName = (endpointId: string) => `webhook:${endpointId}`;

/** The delay before retry `attempt` + 1: exponential, capped, with jitter so retries spread out. */
export function retryDelay(
  attempt: number,
  tuning: Pick<DispatchTuning, 'retryBaseMs' | 'retryMaxMs'>,
) {
  const exponential = Math.min(
    tuning.retryBaseMs * 2 ** Math.max(0, attempt - 1),
    tuning.retryMaxMs,
  );
  return Math.round(exponential * (0.5 + Math.random() * 0.5));
}

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * How long a write's nudge waits, so that the writes of those milliseconds
 * share one look for due endpoints: a look per write would cost a query per
 * write, endpoints or none.
 */
const NUDGE_AFTER_MS = 25;

/** Its leases and positions are on the endpoints (migration 025); a disabled one is never taken. */
const WEBHOOK_LEASES: LeaseTable = {
  table: 'webhook_endpoints',
  key: 'id',
  cursor: 'delivered_seq',
  onlyIf: 'enabled',
  // Released endpoints keep their place: those served longest ago are taken first.
  releaseAtNow: true,
};

type Due = { key: string; accountId: string; endpoint?: repo.EndpointRow };
type Poll = { more: boolean; taken: number; error?: unknown };

/**
 * Delivers every endpoint's events from the account's change log, in order,
 * at least once. It is a follower of the change log (follower/) keyed by
 * endpoint: each node polls for endpoints with events past their position,
 * takes one by lease (so one node at a time sends to it: no two nodes send
 * the same event, and order holds), sends its events one by one and records
 * the position after each; a failure keeps the endpoint on that event until
 * its retry (network errors, 5xx, 429) or moves past it (any other answer).
 * A crash between a send and its record sends that event again after the
 * lease lapses: at least once, never lost.
 */
export class WebhookDispatcher {
  private readonly active = new Map<string, Promise<void>>();
  private readonly schedule: Scheduler<Poll>;
  private readonly follower: Follower<Due>;
  private lastPrune = 0;

  constructor(
    private readonly deps: DispatchDeps,
    private readonly tuning: DispatchTuning,
    private readonly onError: (error: unknown) => void,
  ) {
    const { changeLog } = deps;
    this.schedule = new Scheduler<Poll>(
      async () => {
        try {
          return { more: false, taken: await this.takeDue() };
        } catch (error) {
          this.onError(error);
          return { more: false, taken: 0, error };
        }
      },
      { more: false, taken: 0 },
      // A nudge waits NUDGE_AFTER_MS for the writes beside it, and is not postponed by them.
      { pollMs: tuning.pollMs, nudgeAfterMs: NUDGE_AFTER_MS, nudgeWithinMs: 1, breathMs: 0 },
    );
    this.follower = new Follower<Due>(
      {
        name: 'webhook dispatcher',
        leases: WEBHOOK_LEASES,
        keysWithWork: async () => [],
        visit: (lease) => this.pass(lease),
        handle: (batch, lease) => this.handle(batch, lease),
        resync: async (lease) => {
          // Enabled again after its events were compacted (a disabled endpoint holds nothing).
          const { compactedThrough } = await changeLog.changeLogBounds(lease.key.accountId);
          return lease.advance(compactedThrough);
        },
        advanced: (lease) => this.advanced(lease),
      },
      {
        db: deps.db,
        holder: deps.node,
        read: (accountId, seq, limit) => changeLog.changesAfter({ accountId }, seq, limit),
      },
      {
        keysPerRun: tuning.concurrency,
        pageSize: tuning.pageSize,
        leaseMs: tuning.leaseMs,
        turnMs: tuning.passMs,
      },
      () => this.schedule.closed,
    );
  }

  start(): void {
    this.schedule.start();
  }

  /**
   * Looks for work shortly (a write on this node has just committed): once
   * for every write of the next NUDGE_AFTER_MS, and after a look under way,
   * which may have missed this write.
   */
  nudge(): void {
    this.schedule.nudge();
  }

  /** One look for due endpoints; starts a pass for each it takes. Returns how many it took. */
  async poll(): Promise<number> {
    const run = await this.schedule.runOnce();
    if (run.error) throw run.error;
    return run.taken;
  }

  /** Polls and waits for the passes until nothing is due (tests, and a clean stop). */
  async drain(): Promise<void> {
    for (;;) {
      const taken = await this.poll();
      await Promise.all(this.active.values());
      if (taken === 0 && this.active.size === 0) return;
    }
  }

  async stop(): Promise<void> {
    await this.schedule.close();
    await Promise.all(this.active.values());
  }

  /** Ends every lease: for a node that knows it is the only one (the embedded database's one process). */
  releaseAllLeases(): Promise<void> {
    return this.follower.releaseAll();
  }

  private async takeDue(): Promise<number> {
    const { db, now } = this.deps;
    if (now().getTime() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now().getTime();
      const at = now().getTime();
      const [succeeded, any] = [this.tuning.keepSucceededMs, this.tuning.keepDeliveriesMs];
      while (
        (await repo.pruneDeliveries(db, new Date(at - succeeded), new Date(at - any), 5_000)) ===
        5_000
      );
    }
    const free = this.tuning.concurrency - this.active.size;
    if (free <= 0) return 0;
    const due = await repo.dueEndpoints(db, now(), free + this.active.size);
    let taken = 0;
    for (const { id, accountId } of due) {
      if (this.active.size >= this.tuning.concurrency) break;
      if (this.active.has(id)) continue;
      const lease = await this.follower.claim({ key: id, accountId });
      if (!lease) continue;
      taken += 1;
      const pass = this.follower
        .turn(lease)
        .then(
          () => {},
          (error: unknown) => this.onError(error),
        )
        .finally(() => this.active.delete(id));
      this.active.set(id, pass);
    }
    return taken;
  }

  /** An endpoint's pass: its events after its position until none is left, a retry waits, or the pass's time is up. */
  private async pass(lease: Lease<Due>): Promise<boolean> {
    const { db, changeLog } = this.deps;
    const endpoint = await repo.findEndpoint(db, lease.key.accountId, lease.key.key);
    if (!endpoint) return true;
    lease.key.endpoint = endpoint;
    const refused = await outsidePlan(this.deps, endpoint);
    if (refused) {
      await this.advance(endpoint, { disabledReason: `${refused}, then enable it.` });
      await changeLog.releaseChangeLog(endpoint.account_id, holdName(endpoint.id));
      return true;
    }
    return lease.follow();
  }

  /** A page of events: each one the endpoint hears is delivered, in order. */
  private async handle(batch: ChangeEvent[], lease: Lease<Due>) {
    const endpoint = lease.key.endpoint!;
    let position = lease.cursor;
    for (const event of batch) {
      if (!hears(endpoint, event)) {
        position = event.seq;
        continue;
      }
      const next = await this.deliver(endpoint, event, position);
      if (next === 'stop') return { stopped: true };
      position = event.seq;
      if (Date.now() >= lease.endsAt) break;
    }
    return { through: position };
  }

  /** The position moved: the hold on the log moves with it, and the endpoint is read again. */
  private async advanced(lease: Lease<Due>): Promise<boolean> {
    const { db, changeLog } = this.deps;
    const { accountId, key: id } = lease.key;
    await changeLog.holdChangeLog(accountId, holdName(id), lease.cursor);
    // Read after the hold: an endpoint disabled or deleted meanwhile may have
    // released its hold before this pass made it again, so release it here.
    const fresh = await repo.findEndpoint(db, accountId, id);
    if (!fresh?.enabled) {
      await changeLog.releaseChangeLog(accountId, holdName(id));
      return false;
    }
    // It may also have been changed (events, URL, secret) while this pass ran.
    lease.key.endpoint = fresh;
    return true;
  }

  private advance(endpoint: repo.EndpointRow, changes: Parameters<typeof repo.advanceEndpoint>[4]) {
    const { db, node } = this.deps;
    return repo.advanceEndpoint(db, endpoint.id, node, this.tuning.leaseMs, changes);
  }

  /**
   * One event to one endpoint: 'next' when the endpoint may move past it
   * (delivered, or refused for good), 'stop' when the pass ends (a retry
   * waits, the endpoint was disabled, or this node lost it).
   */
  private async deliver(
    endpoint: repo.EndpointRow,
    event: ChangeEvent,
    position: number,
  ): Promise<'next' | 'stop'> {
    const { db, now, changeLog } = this.deps;
    const delivery = await repo.startDelivery(db, {
      accountId: endpoint.account_id,
      endpointId: endpoint.id,
      eventId: eventIdOf(event.accountId, event.seq),
      eventType: event.type,
      seq: event.seq,
    });
    const body = changeBody(event);
    const text = JSON.stringify(body);
    const attempt = await sendWebhook(
      endpoint.url,
      text,
      deliveryHeaders(endpoint, text, body, now()),
      this.deps.send,
    );
    const at = now();
    const advance = (changes: Parameters<typeof repo.advanceEndpoint>[4]) =>
      this.advance(endpoint, changes);
    const record = (status: repo.DeliveryRow['status'], nextRetryAt: Date | null = null) =>
      repo.finishDelivery(db, delivery.id, { ...resultOf(attempt), status, nextRetryAt });

    if (attempt.outcome === 'succeeded') {
      await record('succeeded');
      return (await advance({ deliveredSeq: event.seq, failingSince: null, retryAt: null }))
        ? 'next'
        : 'stop';
    }
    const failingSince = endpoint.failing_since ?? at;
    if (at.getTime() - failingSince.getTime() >= this.tuning.failAfterMs) {
      await record('failed');
      const hours = Math.round(this.tuning.failAfterMs / 3_600_000);
      await advance({
        deliveredSeq: attempt.outcome === 'failed' ? event.seq : position,
        disabledReason: `Disabled after failing for ${hours} hours. Last error: ${attempt.error ?? 'unknown'}`,
      });
      await changeLog.releaseChangeLog(endpoint.account_id, holdName(endpoint.id));
      return 'stop';
    }
    endpoint.failing_since = failingSince;
    if (attempt.outcome === 'failed') {
      await record('failed');
      return (await advance({ deliveredSeq: event.seq, failingSince: at })) ? 'next' : 'stop';
    }
    const retryAt = new Date(at.getTime() + retryDelay(delivery.attempt, this.tuning));
    await record('retrying', retryAt);
    await advance({ deliveredSeq: position, retryAt, failingSince: at });
    // The retry waits: let any node take it then (the follower releases it as the pass ends).
    return 'stop';
  }
}

export function resultOf(attempt: Attempt) {
  return {
    statusCode: attempt.statusCode,
    durationMs: attempt.durationMs,
    error: attempt.error,
    excerpt: attempt.excerpt,
  };
}
