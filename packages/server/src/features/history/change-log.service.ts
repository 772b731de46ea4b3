import { planById, type GraphChange } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { Scheduler } from '../../follower/scheduler.js';
import type { AuthContext } from '../../lib/auth-context.js';
import type { ChangeEvent } from '../../lib/change-event.js';
import type { Entitlements } from '../entitlements/index.js';
import * as changeRepo from './change-log.repository.js';
import * as historyRepo from './history.repository.js';

/**
 * The change log's readers and its retention (docs/security.md, "The change
 * log"). Every graph write appends its events (graph.writes); realtime
 * clients resume from it. An account's events are kept for its plan's
 * `changeLogRetentionDays` (or the operator's CHANGE_LOG_RETENTION_DAYS) and
 * then compacted, unless a reader holds them: compaction never passes the
 * lowest position a reader has declared it still needs (`holdChangeLog`).
 */

/** Bytes one replay page may hold (beyond its first event, which always comes). */
export const REPLAY_PAGE_BYTES = 1024 * 1024;

export interface ChangePage {
  events: ChangeEvent[];
  /**
   * The events right after the asked-for seq were compacted: the reader
   * cannot resume from there and must reload the current state instead.
   */
  resync: boolean;
}

/**
 * Committed events after `seq`, oldest first: at most `limit`, and no more
 * than REPLAY_PAGE_BYTES of them. Seqs have no holes (a rolled-back write
 * returns its seqs), so a page that does not start at `seq + 1`, or an empty
 * one when the log was compacted past `seq`, means events are gone.
 */
export async function changesAfter(
  { db }: { db: Db },
  auth: Pick<AuthContext, 'accountId'>,
  seq: number,
  limit: number,
): Promise<ChangePage> {
  const rows = await changeRepo.eventsSince(db, auth.accountId, seq, limit, REPLAY_PAGE_BYTES);
  const first = rows[0];
  if (first) {
    if (Number(first.seq) !== seq + 1) return { events: [], resync: true };
  } else if ((await changeRepo.compactedThrough(db, auth.accountId)) > seq) {
    // Read after the page: a compaction that removed what followed `seq` has
    // moved the marker by now (it deletes and marks in one statement).
    return { events: [], resync: true };
  }
  return {
    events: rows.map((row) => ({
      // The change log holds only what the write path emitted: the shared union.
      ...({ type: row.type, payload: row.payload } as GraphChange),
      accountId: auth.accountId,
      spaceId: row.spaceId,
      space: row.space,
      seq: Number(row.seq),
      at: row.at.toISOString(),
      ...(row.origin ? { origin: row.origin } : {}),
    })),
    resync: false,
  };
}

/**
 * Declares that `reader` (a webhook endpoint, say) has consumed the account's
 * log through `seq` and needs every event after it: compaction stops there
 * until the hold moves on or is released.
 */
export async function holdChangeLog(
  { db }: { db: Db },
  accountId: string,
  reader: string,
  seq: number,
): Promise<void> {
  await changeRepo.holdEvents(db, accountId, reader, seq);
}

export async function releaseChangeLog(
  { db }: { db: Db },
  accountId: string,
  reader: string,
): Promise<void> {
  await changeRepo.releaseEvents(db, accountId, reader);
}

/** The account's last seq, and the seq through which its log was compacted (0 when none was). */
export async function changeLogBounds(
  { db }: { db: Db },
  accountId: string,
): Promise<{ latest: number; compactedThrough: number }> {
  const [latest, compactedThrough] = await Promise.all([
    changeRepo.latestSeq(db, accountId),
    changeRepo.compactedThrough(db, accountId),
  ]);
  return { latest, compactedThrough };
}

export interface RetentionOptions {
  /** The operator's window for every plan (CHANGE_LOG_RETENTION_DAYS); unset, each plan's own. */
  retentionDays?: number | undefined;
  /** Events removed per statement: each is a short transaction beside live traffic. */
  batch?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Compacts every account's events older than its retention window, in
 * batches. Safe to run on several nodes at once: each batch deletes and
 * counts only the rows it removed. Returns how many events went.
 */
export async function compactChangeLog(
  db: Db,
  entitlements: Entitlements,
  now: Date,
  options: RetentionOptions = {},
): Promise<number> {
  const batch = options.batch ?? 5_000;
  const windowDays = (accountPlanDays: number) => options.retentionDays ?? accountPlanDays;
  // No account keeps events for less than the shortest window: only accounts
  // with events older than that can have anything to compact.
  const shortest = options.retentionDays ?? minimumPlanRetentionDays();
  const candidates = await changeRepo.accountsWithEventsBefore(
    db,
    new Date(now.getTime() - shortest * DAY_MS),
  );
  let removed = 0;
  for (const accountId of candidates) {
    const plan = await entitlements.planOf(accountId, now, db);
    const before = new Date(
      now.getTime() - windowDays(plan.features.changeLogRetentionDays) * DAY_MS,
    );
    for (;;) {
      const count = await changeRepo.compactEvents(db, accountId, before, batch);
      removed += count;
      if (count < batch) break;
    }
    // History is kept as long as the log: what the log no longer holds goes from it too.
    await historyRepo.compactHistory(db, accountId);
  }
  return removed;
}

function minimumPlanRetentionDays(): number {
  return planById('free').features.changeLogRetentionDays;
}

/**
 * Runs `compactChangeLog` every `intervalMs` (and soon after start), one run
 * at a time (follower/scheduler.ts), reporting failures instead of throwing.
 */
export class ChangeLogCompactor {
  private readonly schedule: Scheduler<{ more: boolean }>;

  constructor(
    db: Db,
    entitlements: Entitlements,
    now: () => Date,
    options: RetentionOptions & { intervalMs: number },
    onError: (error: unknown) => void,
  ) {
    this.schedule = new Scheduler<{ more: boolean }>(
      async () => {
        await compactChangeLog(db, entitlements, now(), options).then(() => undefined, onError);
        return { more: false };
      },
      { more: false },
      // The first run a minute after start, not during it: starting stays quick.
      { pollMs: options.intervalMs, firstRunMs: Math.min(60_000, options.intervalMs) },
    );
  }

  start(): void {
    this.schedule.start();
  }

  async runOnce(): Promise<void> {
    await this.schedule.runOnce();
  }

  stop(): Promise<void> {
    return this.schedule.close();
  }
}
