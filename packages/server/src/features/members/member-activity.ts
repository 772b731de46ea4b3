import type { Db } from '../../db/connection.js';
import { touchMembers } from './members.repository.js';

const MINUTE_MS = 60_000;

/**
 * Each member's latest request in an account (the Members screen's "last
 * active"), counted in memory to the minute and written in batches, so a
 * request never waits on a bookkeeping write (docs/architecture.md, rules).
 */
export class MemberActivity {
  private pending = new Map<string, { accountId: string; userId: string; at: Date }>();
  /** The minute last recorded per member: most requests change nothing. */
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown, message: string) => void,
  ) {}

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

  /** Writes what was recorded; a failed batch is logged and dropped, never retried forever. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await touchMembers(this.db, batch);
    } catch (error) {
      this.onError(error, 'could not record members’ last activity');
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
