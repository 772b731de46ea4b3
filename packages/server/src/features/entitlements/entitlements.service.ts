import { performance } from 'node:perf_hooks';
import { FREE_PLAN_ID, planById, tierRank, type Plan } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import * as repo from './entitlements.repository.js';
import type { EntitlementRow } from './entitlements.repository.js';

export type { EntitlementRow } from './entitlements.repository.js';

/**
 * Entitlements: the plan whose limits apply to an account, judged from its
 * subscription row (which billing writes), and this node's short-lived copy
 * of it. Every limit (operations, storage, keys, change-log retention) and
 * the dashboard read the plan here, through `Entitlements.planOf`.
 */

/** Provider states in which a paid plan is in force. */
export const LIVE = new Set(['active', 'trialing']);

const FREE = planById(FREE_PLAN_ID);

/** How long a read subscription is trusted (changes made on other nodes show within it). */
const PLAN_READ_TTL_MS = 5_000;
/** Accounts whose subscription is kept, at most. */
const PLANS_KEPT = 10_000;

/**
 * The plan whose limits apply now. A paid plan applies while its
 * subscription is active (or trialing); a lapsed or failed one (past due,
 * unpaid, cancelled, or set to cancel and past its period end) falls back to
 * the free limits — nothing is deleted, the account just cannot grow past
 * them. After a downgrade the plan it was on stays in force until that
 * period ends (`grace_*`, pricing FAQ): `plan_id` is the plan it moves to.
 * Nothing has to run at the period end: the row is judged against `now`
 * whenever it is read. No row means free.
 */
export function effectivePlan(row: EntitlementRow | undefined, now: Date): Plan {
  if (!row) return FREE;
  const plan = planById(row.plan_id);
  if (plan.id === FREE_PLAN_ID) return FREE;
  if (!LIVE.has(row.status)) return FREE;
  if (row.cancel_at_period_end && row.current_period_end && row.current_period_end <= now) {
    return FREE;
  }
  return pendingDowngrade(row, now)?.from ?? plan;
}

/**
 * A downgrade not yet due: the plan still in force (`from`), the plan the
 * row moves to, and when. A grace plan that is not above the row's plan (an
 * upgrade since) is no downgrade.
 */
export function pendingDowngrade(
  row: EntitlementRow,
  now: Date,
): { from: Plan; to: Plan; at: Date } | null {
  if (!row.grace_plan_id || !row.grace_until || row.grace_until <= now) return null;
  const from = planById(row.grace_plan_id);
  const to = planById(row.plan_id);
  if (from.id === to.id || isUpgrade(from, to)) return null;
  return { from, to, at: row.grace_until };
}

/** Whether moving `from` → `to` is an upgrade: a higher tier, or the same tier paid yearly instead. */
export function isUpgrade(from: Plan, to: Plan): boolean {
  const rankFrom = tierRank(from.id);
  const rankTo = tierRank(to.id);
  return (
    rankTo > rankFrom || (rankTo === rankFrom && to.interval === 'year' && from.interval !== 'year')
  );
}

/**
 * The plan in force read straight from the row, past any node's copy: for
 * one-off readers outside a running server (the CLI, graph writes given no
 * `planOf`, tests checking what was written). A running server reads
 * `Entitlements.planOf`.
 */
export async function currentPlan(db: Db, accountId: string, now = new Date()): Promise<Plan> {
  return effectivePlan(await repo.findEntitlement(db, accountId), now);
}

/**
 * This node's reader of plans. The plan in force is judged now from the
 * account's subscription as read at most PLAN_READ_TTL_MS ago: every request
 * is admitted against it, and re-reading the row each time was one statement
 * of each. A copy past half that age is read again in the background, one
 * read per account at a time, so a busy account's requests do not wait on
 * it. A change made through this node's billing is seen at once (billing
 * calls `forget`, see the runtime); one made on another node within that
 * time. A reader inside a transaction passes it as `db` (PGlite has one
 * connection, which the transaction holds) and reads through it.
 */
export class Entitlements {
  /** Subscriptions read, by account, in the order they were read. */
  private readonly kept = new Map<string, { row: EntitlementRow | undefined; readAt: number }>();
  /** The read under way, by account: later readers share it. */
  private readonly reading = new Map<string, Promise<EntitlementRow | undefined>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  async planOf(accountId: string, now = this.now(), db: Db = this.db): Promise<Plan> {
    const kept = this.kept.get(accountId);
    const age = kept ? performance.now() - kept.readAt : Number.POSITIVE_INFINITY;
    if (kept && age < PLAN_READ_TTL_MS) {
      // A failed read ahead is left to the next reader past the copy's age.
      if (age > PLAN_READ_TTL_MS / 2) this.read(accountId).catch(() => undefined);
      return effectivePlan(kept.row, now);
    }
    const row = db === this.db ? await this.read(accountId) : await this.readThrough(db, accountId);
    return effectivePlan(row, now);
  }

  /** The account's subscription row, read once however many ask meanwhile. */
  private read(accountId: string): Promise<EntitlementRow | undefined> {
    const under = this.reading.get(accountId);
    if (under) return under;
    const reading = this.readThrough(
      this.db,
      accountId,
      () => this.reading.get(accountId) === reading,
    );
    this.reading.set(accountId, reading);
    const done = () => {
      if (this.reading.get(accountId) === reading) this.reading.delete(accountId);
    };
    reading.then(done, done);
    return reading;
  }

  /** Reads the row and keeps it, unless `current` says it was forgotten meanwhile. */
  private async readThrough(db: Db, accountId: string, current = () => true) {
    const readAt = performance.now();
    const row = await repo.findEntitlement(db, accountId);
    if (current()) {
      this.kept.delete(accountId);
      this.kept.set(accountId, { row, readAt });
      // Maps keep insertion order: drop the oldest past the cap.
      if (this.kept.size > PLANS_KEPT) {
        this.kept.delete(this.kept.keys().next().value!);
      }
    }
    return row;
  }

  /** The account's subscription changed: its next read goes to the row again. */
  forget(accountId: string): void {
    this.kept.delete(accountId);
    // A read under way may have read the row before the change: it keeps nothing.
    this.reading.delete(accountId);
  }
}
