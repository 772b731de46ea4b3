import { UNLIMITED, type Plan } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { AppError, tooManyRequests } from '../../lib/errors.js';
import { BatchedWriter } from '../../lib/batched-writer.js';
import type { Entitlements } from '../entitlements/index.js';
import * as repo from './usage.repository.js';

export type OperationType = repo.UsageRow['operationType'];

/** What a REST route or MCP tool counts as. */
export interface Operation {
  type: OperationType;
  resource: 'entity' | 'observation' | 'relation' | 'graph' | 'api_key';
}

/** Operations by kind; `total` is their sum. */
export interface OperationCounts {
  queries: number;
  creates: number;
  updates: number;
  deletes: number;
  total: number;
}

export interface DailyOperations extends OperationCounts {
  /** YYYY-MM-DD (UTC). */
  date: string;
}

export interface OperationDetail {
  operation_type: OperationType;
  resource_type: string;
  /** Milliseconds, two decimals. */
  avg_response_time: number;
  request_count: number;
}

/** An account's usage this month (UTC), from the daily rows plus what this node has not flushed yet. */
export interface UsageReport {
  today: OperationCounts;
  month: OperationCounts;
  /** Every day of the month that had operations, oldest first. */
  days: DailyOperations[];
  /** Per operation and resource type, most requested first. */
  details: OperationDetail[];
  /** Operations the monthly limit counts: written plus admitted on any node. */
  admitted: number;
  /** When the month's allowance starts again (ISO time). */
  resetsAt: string;
}

const KEY_OF_TYPE: Record<OperationType, Exclude<keyof OperationCounts, 'total'>> = {
  query: 'queries',
  create: 'creates',
  update: 'updates',
  delete: 'deletes',
};

export const noOperations = (): OperationCounts => ({
  queries: 0,
  creates: 0,
  updates: 0,
  deletes: 0,
  total: 0,
});

const dayOf = (now: Date) => now.toISOString().slice(0, 10);
const monthOf = (now: Date) => `${now.toISOString().slice(0, 7)}-01`;

function nextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

function monthlyLimitReached(plan: Plan, now: Date): AppError {
  return tooManyRequests(
    `Monthly operation limit reached: the ${plan.name} plan includes ${plan.features.maxQueries.toLocaleString('en-US')} operations per month. Upgrade your plan, or wait until the month ends.`,
    Math.max(1, Math.ceil((nextMonth(now).getTime() - now.getTime()) / 1000)),
  );
}

/** The plan's operations a month, as the conditional increment compares them. */
function allowanceOf(plan: Plan): number {
  const max = plan.features.maxQueries;
  return max === UNLIMITED ? Number.MAX_SAFE_INTEGER : max;
}

/** Admissions one reservation takes at most for an account's next requests on this node. */
const LEASE_MAX = 64;

/**
 * Meters operations per account, day, operation and resource, and holds each
 * account to its plan's monthly allowance exactly.
 *
 * - Admission (`assertWithinPlan`) reserves operations by a conditional
 *   increment in the database (`usage_monthly`): concurrent requests on any
 *   number of nodes queue on the account's row, so an allowance of N admits
 *   exactly N. A busy account's node reserves a lease of several at once and
 *   hands them out without a statement, reserving the next lease while half
 *   of this one is left, so a busy account's requests do not wait on that
 *   statement. A lease the account did not draw on for a flush interval is
 *   given back with the flush (a crash keeps at most a lease and a half,
 *   1.5 × LEASE_MAX, counted per account and node). Past the allowance: 429
 *   with Retry-After until the month resets.
 * - An admitted operation that succeeds is `record`ed: its kind and time are
 *   aggregated in memory and flushed in batches (a request never waits on
 *   that write); one that fails is `release`d and does not count.
 * - A flush that fails keeps its counts for the next one. A crash loses the
 *   per-kind counts and times recorded since the last flush (at most one flush
 *   interval); those operations still count against the month's allowance,
 *   which was written when they were admitted.
 */
export class UsageMeter extends BatchedWriter {
  private pending = new Map<string, repo.UsageRow>();
  /** Recorded operations to take off the admitted ones with the next flush: account|month. */
  private settled = new Map<string, repo.Settled>();
  /** Admitted on this node and neither recorded nor released yet: account → month → count. */
  private readonly inFlight = new Map<string, Map<string, number>>();
  /** Admissions this node reserved in the database and has not handed out yet, by account. */
  private readonly leases = new Map<string, { month: string; left: number; size: number }>();
  /** A reservation in flight, by account: requests finding no lease wait for it. */
  private readonly reserving = new Map<string, Promise<AppError | undefined>>();
  /** Admissions handed out by account in this flush interval, and in the one before. */
  private demand = new Map<string, number>();
  private previousDemand = new Map<string, number>();
  /** Set by `stop`: its last flush gives every lease back. */
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    /** The plan in force, for the monthly allowance (read at most a few seconds ago). */
    private readonly entitlements: Entitlements,
    private readonly onError?: (error: unknown, message: string) => void,
  ) {
    super();
  }

  /**
   * Admits one operation of the account, or throws 429 (with Retry-After)
   * when the plan's operations for this month are used up. Follow it with
   * `record` when the operation succeeds, `release` when it fails.
   */
  async assertWithinPlan(accountId: string): Promise<void> {
    const month = monthOf(this.now());
    for (;;) {
      if (this.takeLeased(accountId, month)) return;
      const pending = this.reserving.get(accountId);
      if (!pending) break;
      await pending.catch(() => undefined);
    }
    const reservation = this.reserve(accountId);
    this.reserving.set(accountId, reservation);
    try {
      const refused = await reservation;
      if (refused) throw refused;
    } finally {
      if (this.reserving.get(accountId) === reservation) this.reserving.delete(accountId);
    }
  }

  /** Writes what is left and gives every lease back, the one being reserved too. */
  override async stop(): Promise<void> {
    this.stopping = true;
    try {
      await Promise.allSettled(this.reserving.values());
      await super.stop();
    } finally {
      this.stopping = false;
    }
  }

  /**
   * Reserves admissions in the database: one for the caller and, for an
   * account that has been busy, a lease of more that the account's next
   * requests on this node take without a statement (at most LEASE_MAX; what is
   * left of it goes back once the account is idle). The lease is all or none:
   * near the end of the allowance, one at a time, so no node holds what
   * another could use. Resolves to the 429 when nothing is left.
   */
  private async reserve(accountId: string): Promise<AppError | undefined> {
    const now = this.now();
    const month = monthOf(now);
    const plan = await this.entitlements.planOf(accountId, now);
    const allowance = allowanceOf(plan);
    if (await this.reserveLease(accountId, month, allowance)) {
      this.takeLeased(accountId, month);
    } else if (!(await repo.admit(this.db, accountId, month, allowance))) {
      return monthlyLimitReached(plan, now);
    } else {
      this.handOut(accountId, month);
    }
    return undefined;
  }

  /**
   * Reserves a lease sized to the account's recent demand and adds it to what
   * is left of the current one; false when the account has not been busy or
   * the allowance has no room for all of it.
   */
  private async reserveLease(accountId: string, month: string, allowance: number) {
    const busy = Math.max(this.demand.get(accountId) ?? 0, this.previousDemand.get(accountId) ?? 0);
    const size = Math.min(LEASE_MAX, busy);
    if (size <= 1 || !(await repo.admit(this.db, accountId, month, allowance, size))) return false;
    const lease = this.leases.get(accountId);
    if (lease?.month === month) {
      lease.left += size;
      lease.size = size;
    } else {
      this.giveBackLease(accountId);
      this.leases.set(accountId, { month, left: size, size });
    }
    return true;
  }

  /**
   * The next lease, reserved while half of this one is left: the account's
   * requests go on drawing on what is left meanwhile, and wait only if it runs
   * out first. Nothing waits on its failure; a request finding no lease
   * reserves for itself.
   */
  private reserveAhead(accountId: string, month: string): void {
    const reservation = (async () => {
      const plan = await this.entitlements.planOf(accountId, this.now());
      if (!(await this.reserveLease(accountId, month, allowanceOf(plan)))) {
        // No room for another lease (or no longer busy): the rest of this one
        // is drawn without asking again, then requests reserve one at a time.
        const lease = this.leases.get(accountId);
        if (lease) lease.size = 0;
      }
      return undefined;
    })().catch((error: unknown) => {
      this.onError?.(error, 'could not reserve admissions ahead');
      return undefined;
    });
    this.reserving.set(accountId, reservation);
    void reservation.then(() => {
      if (this.reserving.get(accountId) === reservation) this.reserving.delete(accountId);
    });
  }

  /** Hands out one admission of the account's lease for `month`, if it holds one. */
  private takeLeased(accountId: string, month: string): boolean {
    const lease = this.leases.get(accountId);
    if (!lease) return false;
    if (lease.month !== month) {
      // The month turned: what was reserved for the last one goes back.
      this.giveBackLease(accountId);
      return false;
    }
    if (lease.left === 0) return false;
    lease.left -= 1;
    this.handOut(accountId, month);
    if (lease.left <= lease.size / 2 && !this.reserving.has(accountId)) {
      this.reserveAhead(accountId, month);
    }
    return true;
  }

  private handOut(accountId: string, month: string): void {
    const months = this.inFlight.get(accountId) ?? new Map<string, number>();
    months.set(month, (months.get(month) ?? 0) + 1);
    this.inFlight.set(accountId, months);
    this.demand.set(accountId, (this.demand.get(accountId) ?? 0) + 1);
  }

  /** What is left of the account's lease is taken off its reserved admissions with the next flush. */
  private giveBackLease(accountId: string): void {
    const lease = this.leases.get(accountId);
    if (!lease) return;
    this.leases.delete(accountId);
    if (lease.left > 0) this.settle(accountId, lease.month, lease.left);
  }

  /** Counts an admitted operation that succeeded. */
  record(accountId: string, operation: Operation, elapsedMs: number): void {
    const now = this.now();
    const day = dayOf(now);
    const key = `${accountId}|${day}|${operation.type}|${operation.resource}`;
    const row = this.pending.get(key);
    if (row) {
      row.count += 1;
      row.totalMs += elapsedMs;
    } else {
      this.pending.set(key, {
        accountId,
        day,
        operationType: operation.type,
        resourceType: operation.resource,
        count: 1,
        totalMs: elapsedMs,
      });
    }
    this.settle(accountId, this.takeInFlight(accountId) ?? monthOf(now), 1);
  }

  /**
   * Gives back an admitted operation that failed: it does not count against
   * the plan. Resolves once that is written (so the caller's next request sees
   * it); never rejects — when the write fails it is retried with the next flush.
   */
  async release(accountId: string): Promise<void> {
    const month = this.takeInFlight(accountId);
    if (month === undefined) return;
    try {
      await repo.release(this.db, [{ accountId, month, count: 1 }]);
    } catch (error) {
      this.settle(accountId, month, 1);
      this.onError?.(error, 'could not release an admitted operation; retried with the next flush');
    }
  }

  /**
   * Writes the recorded operations. When the write fails they are kept and
   * retried with the next flush, added to whatever was recorded meanwhile.
   */
  protected async write(): Promise<void> {
    // A lease stays with an account still drawing on it (its next request
    // would only reserve another); an idle account's goes back.
    for (const accountId of [...this.leases.keys()]) {
      if (this.stopping || !this.demand.has(accountId)) this.giveBackLease(accountId);
    }
    this.previousDemand = this.demand;
    this.demand = new Map();
    if (this.pending.size === 0 && this.settled.size === 0) return;
    const batch = this.pending;
    const settled = this.settled;
    this.pending = new Map();
    this.settled = new Map();
    try {
      await repo.addUsage(this.db, [...batch.values()], [...settled.values()]);
    } catch (error) {
      for (const [key, row] of batch) {
        const meanwhile = this.pending.get(key);
        if (meanwhile) {
          meanwhile.count += row.count;
          meanwhile.totalMs += row.totalMs;
        } else {
          this.pending.set(key, row);
        }
      }
      for (const entry of settled.values()) this.settle(entry.accountId, entry.month, entry.count);
      this.onError?.(error, 'could not record usage; kept for the next flush');
    }
  }

  /**
   * The account's usage this month: the daily rows plus what this node
   * recorded and has not flushed (other nodes' unflushed counts show after
   * their next flush). A handful of index range reads, whatever the account's size.
   */
  async report(accountId: string): Promise<UsageReport> {
    const now = this.now();
    const month = monthOf(now);
    const today = dayOf(now);
    // In turn with flushes: read before a flush committed its rows and after it
    // took this node's unflushed counts, they would be counted nowhere.
    const { stored, admitted, unflushed } = await this.inTurn(async () => {
      const [rows, total] = await Promise.all([
        repo.rowsSince(this.db, accountId, month),
        repo.monthTotal(this.db, accountId, month),
      ]);
      const memory: repo.StoredRow[] = [...this.pending.values()]
        .filter((row) => row.accountId === accountId && row.day >= month)
        .map((row) => ({
          day: row.day,
          operation_type: row.operationType,
          resource_type: row.resourceType,
          count: row.count,
          total_ms: row.totalMs,
        }));
      return { stored: rows, admitted: total - this.leased(accountId, month), unflushed: memory };
    });
    const days = new Map<string, DailyOperations>();
    const details = new Map<
      string,
      { type: OperationType; resource: string; count: number; ms: number }
    >();
    for (const row of [...stored, ...unflushed]) {
      const day = days.get(row.day) ?? { date: row.day, ...noOperations() };
      day[KEY_OF_TYPE[row.operation_type]] += row.count;
      day.total += row.count;
      days.set(row.day, day);
      const key = `${row.operation_type}|${row.resource_type}`;
      const detail = details.get(key) ?? {
        type: row.operation_type,
        resource: row.resource_type,
        count: 0,
        ms: 0,
      };
      detail.count += row.count;
      detail.ms += row.total_ms;
      details.set(key, detail);
    }
    const sortedDays = [...days.values()].sort((a, b) => a.date.localeCompare(b.date));
    const monthCounts = noOperations();
    for (const day of sortedDays) {
      for (const key of ['queries', 'creates', 'updates', 'deletes', 'total'] as const) {
        monthCounts[key] += day[key];
      }
    }
    const { date: _date, ...todayCounts } = days.get(today) ?? { date: today, ...noOperations() };
    return {
      today: todayCounts,
      month: monthCounts,
      days: sortedDays,
      details: [...details.values()]
        .filter((detail) => detail.count > 0)
        .map((detail) => ({
          operation_type: detail.type,
          resource_type: detail.resource,
          avg_response_time: Math.round((detail.ms / detail.count) * 100) / 100,
          request_count: detail.count,
        }))
        .sort(
          (a, b) =>
            b.request_count - a.request_count ||
            a.operation_type.localeCompare(b.operation_type) ||
            a.resource_type.localeCompare(b.resource_type),
        ),
      // The counter includes every node's admitted operations (less this
      // node's unused lease); never show less than the rows.
      admitted: Math.max(admitted, monthCounts.total),
      resetsAt: nextMonth(now).toISOString(),
    };
  }

  private leased(accountId: string, month: string): number {
    const lease = this.leases.get(accountId);
    return lease?.month === month ? lease.left : 0;
  }

  private takeInFlight(accountId: string): string | undefined {
    const months = this.inFlight.get(accountId);
    if (!months) return undefined;
    // The oldest month first: an operation admitted before midnight ends in the month it was admitted.
    const month = [...months.keys()].sort()[0]!;
    const left = months.get(month)! - 1;
    if (left > 0) months.set(month, left);
    else months.delete(month);
    if (months.size === 0) this.inFlight.delete(accountId);
    return month;
  }

  private settle(accountId: string, month: string, count: number): void {
    const key = `${accountId}|${month}`;
    const entry = this.settled.get(key);
    if (entry) entry.count += count;
    else this.settled.set(key, { accountId, month, count });
  }
}
