import type { ChangeEvent } from '../lib/change-event.js';
import type { EventBus } from './event-bus.js';

/** Reads an account's committed events after `afterSeq` from the change log, oldest first. */
export type ReadLog = (
  accountId: string,
  afterSeq: number,
  limit: number,
) => Promise<ChangeEvent[]>;

export interface FeedListener {
  /** The account's next event: in seq order, each once, with no gap after the first. */
  event(event: ChangeEvent): void;
  /** Events after `afterSeq` could not be read from the log and were skipped. */
  skipped(afterSeq: number): void;
}

/**
 * How long a gap may stay open before the log is read: a concurrent writer's
 * publication usually lands within a millisecond or two, and then no read is
 * needed at all.
 */
const GAP_GRACE_MS = 3;
const FILL_PAGE = 500;

/**
 * One account's change stream on this node, put in seq order once for every
 * socket of the account. Events of concurrent writers can be published out of
 * commit order (PostgreSQL releases the account lock before the committing
 * client hears back; nodes publish through Redis independently). Seqs are
 * reserved under the account's lock, so when seq n is published every seq
 * below it is committed: a gap is filled from the change log — one read for
 * the account, however many sockets follow it.
 */
class AccountFeed {
  readonly listeners = new Set<FeedListener>();
  /** The last seq emitted (0: none yet — the first event seen starts the stream). */
  private lastSeq = 0;
  /** Events past a gap, waiting for the events before them. */
  private readonly held = new Map<number, ChangeEvent>();
  private filling = false;
  private closed = false;
  readonly stop: () => void;

  constructor(
    private readonly accountId: string,
    bus: EventBus,
    private readonly readLog: ReadLog,
    private readonly onError: (error: unknown) => void,
  ) {
    this.stop = bus.subscribe(accountId, (event) => this.accept(event));
  }

  close(): void {
    this.closed = true;
    this.stop();
    this.held.clear();
  }

  private accept(event: ChangeEvent): void {
    if (this.closed || event.seq <= this.lastSeq) return;
    if (this.lastSeq === 0 || event.seq === this.lastSeq + 1) {
      this.emit(event);
      this.drainHeld();
    } else {
      this.held.set(event.seq, event);
      if (!this.filling) void this.fillGap();
    }
  }

  private emit(event: ChangeEvent): void {
    this.lastSeq = event.seq;
    for (const listener of this.listeners) {
      try {
        listener.event(event);
      } catch (error) {
        // One socket's failure must not stop delivery to the others.
        this.onError(error);
      }
    }
  }

  private drainHeld(): void {
    let next = this.held.get(this.lastSeq + 1);
    while (next) {
      this.held.delete(next.seq);
      this.emit(next);
      next = this.held.get(this.lastSeq + 1);
    }
    for (const seq of this.held.keys()) if (seq <= this.lastSeq) this.held.delete(seq);
  }

  private async fillGap(): Promise<void> {
    this.filling = true;
    await new Promise((resolve) => setTimeout(resolve, GAP_GRACE_MS));
    while (!this.closed && this.held.size > 0) {
      try {
        const before = this.lastSeq;
        const missed = await this.readLog(this.accountId, before, FILL_PAGE);
        for (const event of missed) this.accept(event);
        // Nothing new in the log (cannot happen while seqs are gapless): do not spin.
        if (this.lastSeq === before) throw new Error(`change log has no seq after ${before}`);
      } catch (error) {
        this.onError(error);
        this.skipGap();
      }
    }
    this.filling = false;
  }

  /** The log could not be read: go on from the lowest held event, and say what was skipped. */
  private skipGap(): void {
    if (this.closed || this.held.size === 0) return;
    const after = this.lastSeq;
    for (const listener of this.listeners) {
      try {
        listener.skipped(after);
      } catch (error) {
        this.onError(error);
      }
    }
    const first = this.held.get(Math.min(...this.held.keys()))!;
    this.held.delete(first.seq);
    this.emit(first);
    this.drainHeld();
  }
}

/**
 * Every account's ordered stream on this node, opened while some socket
 * follows it. Sits on the event bus (in-process or Redis), so ordering and gap
 * filling happen once per account per node instead of once per connection.
 */
export class AccountFeeds {
  private readonly feeds = new Map<string, AccountFeed>();

  constructor(
    private readonly bus: EventBus,
    private readonly readLog: ReadLog,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Returns the function that stops listening. */
  subscribe(accountId: string, listener: FeedListener): () => void {
    let feed = this.feeds.get(accountId);
    if (!feed) {
      feed = new AccountFeed(accountId, this.bus, this.readLog, this.onError);
      this.feeds.set(accountId, feed);
    }
    const opened = feed;
    opened.listeners.add(listener);
    return () => {
      opened.listeners.delete(listener);
      if (opened.listeners.size === 0 && this.feeds.get(accountId) === opened) {
        opened.close();
        this.feeds.delete(accountId);
      }
    };
  }

  close(): void {
    for (const feed of this.feeds.values()) feed.close();
    this.feeds.clear();
  }
}
