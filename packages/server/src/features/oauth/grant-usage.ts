import type { Db } from '../../db/connection.js';
import { BatchedWriter } from '../../lib/batched-writer.js';
import { touchGrant } from './oauth.repository.js';

/** When each grant's tokens were last used (Connected apps shows it), noted in memory and written in batches. */
export class GrantUsageTracker extends BatchedWriter {
  private pending = new Map<string, { accountId: string; at: Date }>();

  constructor(
    private readonly db: Db,
    private readonly onError?: (error: unknown, message: string) => void,
  ) {
    super();
  }

  record(accountId: string, grantId: string, at: Date): void {
    const seen = this.pending.get(grantId);
    if (!seen || at > seen.at) this.pending.set(grantId, { accountId, at });
  }

  protected async write(): Promise<void> {
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
}
