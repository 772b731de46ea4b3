import type { Db } from '../../db/connection.js';
import { BatchedWriter } from '../../lib/batched-writer.js';
import { touchMembers } from './members.repository.js';

const MINUTE_MS = 60_000;

/**
 * Each member's latest request in an account (the Members screen's "last
 * active"), counted in memory to the minute and written in batches.
 */
export class MemberActivity extends BatchedWriter {
  private pending = new Map<string, { accountId: string; userId: string; at: Date }>();
  /** The minute last recorded per member: most requests change nothing. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown, message: string) => void,
  ) {
    super();
  }

  record(accountId: string, userId: string, at: Date): void {
    const key = `${accountId}:${userId}`;
    const minute = Math.floor(at.getTime() / MINUTE_MS);
    if (this.seen.get(key) === minute) return;
    this.seen.delete(key);
    this.seen.set(key, minute);
    // Bounded: the oldest members seen fall out first (Maps keep insertion order).
    if (this.seen.size > 10_000) this.seen.delete(this.seen.keys().next().value as string);
    this.pending.set(key, { accountId, userId, at: new Date(minute * MINUTE_MS) });
  }

  protected async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await touchMembers(this.db, batch);
    } catch (error) {
      this.onError(error, 'could not record members’ last activity');
    }
  }
}
