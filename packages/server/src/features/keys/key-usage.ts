import type { Db } from '../../db/connection.js';
import { BatchedWriter } from '../../lib/batched-writer.js';
import { addUsage, type UsageBatch } from './keys.repository.js';

/** API-key requests, counted in memory and written in batches. */
export class KeyUsageTracker extends BatchedWriter {
  private pending = new Map<string, UsageBatch>();

  constructor(
    private readonly db: Db,
    private readonly onError?: (error: unknown, message: string) => void,
  ) {
    super();
  }

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

  protected async write(): Promise<void> {
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
}
