import { UNLIMITED } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { AppError } from '../../lib/errors.js';
import { currentPlan } from '../billing/billing.service.js';
import * as repo from './usage.repository.js';

export type OperationType = repo.UsageRow['operationType'];

/** What a REST route or MCP tool counts as. */
export interface Operation {
  type: OperationType;
  resource: 'entity' | 'observation' | 'relation' | 'graph' | 'api_key';
}

/** How often each node re-reads an account's monthly total (other nodes count too). */
const REFRESH_MS = 60_000;

interface MonthlyCount {
  month: string;
  /** Operations stored for the month when last read, plus those counted here since. */
  count: number;
  readAt: number;
}

/**
 * Meters operations per account, day, operation and resource: counted in
 * memory, written in batches (a request never waits on it), and refuses
 * operations past the plan's monthly allowance with 429 until the month ends.
 */
export class UsageMeter {
  private pending = new Map<string, repo.UsageRow>();
  private readonly monthly = new Map<string, MonthlyCount>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly onError?: (error: unknown, message: string) => void,
  ) {}

  /** Throws 429 when the account has used its plan's operations for this month. */
  async assertWithinPlan(accountId: string): Promise<void> {
    const plan = await currentPlan(this.db, accountId);
    const max = plan.features.maxQueries;
    if (max === UNLIMITED) return;
    const used = await this.monthlyCount(accountId);
    if (used >= max) {
      throw new AppError(
        429,
        'RATE_LIMITED',
        `Monthly operation limit reached: the ${plan.name} plan includes ${max.toLocaleString('en-US')} operations per month. Upgrade your plan, or wait until the month ends.`,
      );
    }
  }

  record(accountId: string, operation: Operation, elapsedMs: number): void {
    const day = this.now().toISOString().slice(0, 10);
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
    const monthly = this.monthly.get(accountId);
    if (monthly && monthly.month === day.slice(0, 7)) monthly.count += 1;
  }

  /**
   * Writes the counted operations. When the write fails they are kept and
   * retried with the next flush, added to whatever was counted meanwhile, so
   * a database outage loses no counts; only a crash loses what was counted
   * since the last flush (at most one flush interval).
   */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await repo.addUsage(this.db, [...batch.values()]);
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
      this.onError?.(error, 'could not record usage; kept for the next flush');
    }
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async monthlyCount(accountId: string): Promise<number> {
    const now = this.now();
    const month = now.toISOString().slice(0, 7);
    const cached = this.monthly.get(accountId);
    if (cached && cached.month === month && now.getTime() - cached.readAt < REFRESH_MS) {
      return cached.count;
    }
    let unflushed = 0;
    for (const row of this.pending.values()) {
      if (row.accountId === accountId && row.day.startsWith(month)) unflushed += row.count;
    }
    const stored = await repo.countSince(this.db, accountId, `${month}-01`);
    const count = stored + unflushed;
    this.monthly.set(accountId, { month, count, readAt: now.getTime() });
    return count;
  }
}
