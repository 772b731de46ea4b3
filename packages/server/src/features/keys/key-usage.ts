import type { Db } from '../../db/connection.js';
import { addUsage, type UsageBatch } from './keys.repository.js';

/**
 * Counts API-key requests in memory and writes them in batches, so a request
 * never waits on a bookkeeping write (docs/architecture.md, rules).
 */
export class KeyUsageTracker {
  private pending = new Map<string, UsageBatch>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly onError?: (error: unknown, message: string) => void,
  ) {}

  record(accountId: string, keyId: string, at: Date): void {
    const day = at.toISOString().slice(0, 10);
    let batch = this.pending.get(keyId);
    if (!batch) {
      batch = { accountId, keyId, requests: 0, lastUsedAt: at, days: new Map() };
      this.pending.set(keyId, batch);
    }
    batch.requests += 1;
    if (at > batch.lastUsedAt) batch.lastUsedAt = at;
    batch.days.set(day, (batch.days.get(day) ?? 0) + 1);
  }

  /** Writes everything recorded so far. A failed batch is logged and dropped, never retried forever. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batches = [...this.pending.values()];
    this.pending = new Map();
    for (const batch of batches) {
      try {
        await addUsage(this.db, batch);
      } catch (error) {
        this.onError?.(error, `could not record usage of API key ${batch.keyId}`);
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
