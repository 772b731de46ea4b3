import type { Db } from '../../db/connection.js';
import { touchGrant } from './oauth.repository.js';

/**
 * When each grant's tokens were last used, noted in memory and written in
 * batches (Connected apps shows it), so a request never waits on a
 * bookkeeping write (docs/architecture.md, rules).
 */
export class GrantUsageTracker {
  private pending = new Map<string, { accountId: string; at: Date }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly onError?: (error: unknown, message: string) => void,
  ) {}

  record(accountId: string, grantId: string, at: Date): void {
    const seen = this.pending.get(grantId);
    if (!seen || at > seen.at) this.pending.set(grantId, { accountId, at });
  }

  /** Writes everything noted so far. A failed write is logged and dropped, never retried forever. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending = new Map();
    for (const [grantId, { accountId, at }] of batch) {
      try {
        await touchGrant(this.db, accountId, grantId, at);
      } catch (error) {
        this.onError?.(error, `could not record use of OAuth grant ${grantId}`);
      }
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
}
