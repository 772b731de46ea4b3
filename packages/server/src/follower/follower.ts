import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection.js';
import type { ChangeEvent } from '../lib/change-event.js';
import * as leases from './leases.repository.js';
import type { LeaseTable } from './leases.repository.js';
import type { RowFailure } from './row-faults.js';
import { Scheduler, type ScheduleOptions } from './scheduler.js';

/**
 * One follower of the change log (decision 043): per key (an account, an
 * endpoint) one node at a time holds a lease, reads the changes after the
 * key's cursor through history's reader, hands each page to the worker's
 * `handle`, records the rows it could not take, and moves the cursor on.
 * A worker supplies what it does with a page; the loop, leases, budgets and
 * failures are here.
 */

/** History's change-log reader (`changesAfter`), which knows of compaction. */
export type ChangeReader = (
  accountId: string,
  afterSeq: number,
  limit: number,
) => Promise<{ events: ChangeEvent[]; resync: boolean }>;

/** A key with work: its lease key and the account whose log it follows. */
export interface WorkKey {
  key: string;
  accountId: string;
  /** The account's last seq when the key was listed (a first claim may start there). */
  eventSeq?: number;
}

/** What `handle` did with a page. */
export interface Handled {
  /** Rows it could not take: recorded (`recordFailures`), logged and skipped. */
  failures?: RowFailure[];
  /** It stopped midway (its budget, a stop): the cursor stays and the page comes again. */
  stopped?: boolean;
  /** The cursor moves only this far (an event it must try again later). */
  through?: number;
}

export interface FollowerWorker<K extends WorkKey> {
  /** As logs name it ('duplicate finder'). */
  readonly name: string;
  readonly leases: LeaseTable;
  /** Keys with work, longest untouched first, without those another node holds (`only`: that key alone). */
  keysWithWork(limit: number, only?: string): Promise<K[]>;
  /** A page of changes after the cursor. */
  handle(batch: ChangeEvent[], lease: Lease<K>): Promise<Handled | void>;
  /** The log was compacted past the cursor: start over (a scan) and say false, or move the cursor and say true. */
  resync(lease: Lease<K>): Promise<boolean>;
  /** The columns a first claim writes besides the key (a table with a row per key made on demand). */
  firstState?(key: K): Record<string, unknown>;
  /** A key's turn (default `lease.follow()`): work before following, such as a scan. True when done for now. */
  visit?(lease: Lease<K>): Promise<boolean>;
  /** After the cursor moved (a hold on the log moved with it, say): false ends the key's turn. */
  advanced?(lease: Lease<K>): Promise<boolean>;
  /** Keeps rows it could not take from being tried again (the warning is logged here). */
  recordFailures?(failures: RowFailure[]): Promise<void>;
}

export interface FollowerOptions {
  /** Keys looked at per run. */
  keysPerRun: number;
  /** Changes read per page. */
  pageSize: number;
  /** How long a node holds a key; renewed with every page. */
  leaseMs: number;
  /** Units of work (entities, texts) per run; each key gets a share, at least `minShare`. */
  unitsPerRun?: number;
  minShare?: number;
  /** A key's turn ends after this long (the next run resumes it). */
  turnMs?: number;
}

export interface FollowerDeps {
  db: Db;
  read: ChangeReader;
  /** This node's name in leases (default: a random one). */
  holder?: string | undefined;
  /** A skipped row's warning: ids and the error's kind, never a row's text. */
  warn?: ((failure: RowFailure, message: string) => void) | undefined;
}

/** What one run did. */
export interface FollowRun {
  keys: number;
  /** Units of work spent. */
  units: number;
  more: boolean;
  error?: unknown;
}

/** A key held by this node for its turn. */
export class Lease<K extends WorkKey> {
  /** Units left in this turn (the worker spends them). */
  units: number;
  readonly endsAt: number;

  constructor(
    private readonly follower: Follower<K>,
    readonly key: K,
    /** Through where the worker has handled the log. */
    public cursor: number,
    /** The holder before stopped without releasing the key. */
    readonly unclean: boolean,
    units: number,
    turnMs: number,
  ) {
    this.units = units;
    this.endsAt = Date.now() + turnMs;
  }

  get holder(): string {
    return this.follower.holder;
  }

  /** The turn is over: stopping, its units spent or its time up. */
  get over(): boolean {
    return this.follower.stopped() || this.units <= 0 || Date.now() >= this.endsAt;
  }

  /** Extends the lease; false when it is no longer ours. */
  renew(): Promise<boolean> {
    return this.follower.renew(this);
  }

  /** Moves the cursor (never back) and renews the lease; false when it is no longer ours. */
  async advance(seq: number): Promise<boolean> {
    this.cursor = Math.max(this.cursor, seq);
    return this.follower.advance(this, seq);
  }

  /** Lets any node take the key at once (the turn ends: nothing more is written under it). */
  release(): Promise<void> {
    return this.follower.release(this);
  }

  /** Reads and handles pages after the cursor until none is left (true) or the turn is over (false). */
  follow(): Promise<boolean> {
    return this.follower.follow(this);
  }
}

export class Follower<K extends WorkKey> {
  readonly holder: string;
  private readonly options: Required<FollowerOptions>;

  constructor(
    private readonly worker: FollowerWorker<K>,
    private readonly deps: FollowerDeps,
    options: FollowerOptions,
    /** Stopping: the turn under way ends at its next step. */
    readonly stopped: () => boolean = () => false,
  ) {
    this.holder = deps.holder ?? randomUUID();
    this.options = {
      unitsPerRun: Infinity,
      minShare: 1,
      turnMs: Infinity,
      ...options,
    };
  }

  /** One run: the keys with work, longest untouched first, or `only` that one. */
  async run(only?: string): Promise<FollowRun> {
    const run: FollowRun = { keys: 0, units: 0, more: false };
    const { keysPerRun, unitsPerRun, minShare } = this.options;
    let left = unitsPerRun;
    try {
      const keys = await this.worker.keysWithWork(keysPerRun, only);
      run.more = !only && keys.length === keysPerRun;
      // Each key's share of the run, so that one import does not hold the others to the next run.
      const share = Math.max(minShare, Math.ceil(unitsPerRun / Math.max(keys.length, 1)));
      for (const key of keys) {
        if (this.stopped() || left <= 0) {
          run.more = true;
          break;
        }
        const turn = await this.take(key, Math.min(share, left));
        if (!turn) continue;
        run.keys += 1;
        left -= turn.spent;
        run.units += turn.spent;
        if (!turn.done) run.more = true;
      }
    } catch (error) {
      run.error = error;
    }
    return run;
  }

  /** One key's turn: claimed, visited, released (undefined when another node holds it). */
  async take(key: K, units = Infinity): Promise<{ done: boolean; spent: number } | undefined> {
    const lease = await this.claim(key, units);
    return lease && this.turn(lease);
  }

  /** Takes `key` for this node, with `units` of work, unless another node holds it. */
  async claim(key: K, units = Infinity): Promise<Lease<K> | undefined> {
    const { db } = this.deps;
    const { leaseMs, turnMs } = this.options;
    const first = this.worker.firstState?.(key);
    const claimed = await leases.claim(
      db,
      this.worker.leases,
      key.key,
      this.holder,
      leaseMs,
      first,
    );
    if (!claimed) return undefined;
    return new Lease(this, key, claimed.cursor, claimed.unclean, units, turnMs);
  }

  /** A claimed key's turn (`visit`, by default `follow`), then its release. */
  async turn(lease: Lease<K>): Promise<{ done: boolean; spent: number }> {
    const units = lease.units;
    try {
      const done = await (this.worker.visit ? this.worker.visit(lease) : lease.follow());
      return { done, spent: units - lease.units };
    } finally {
      await this.release(lease);
    }
  }

  release(lease: Lease<K>): Promise<void> {
    return leases.release(this.deps.db, this.worker.leases, lease.key.key, this.holder);
  }

  /** Ends every lease of the worker: for a node that knows it is the only one (the embedded database). */
  releaseAll(): Promise<void> {
    return leases.releaseAll(this.deps.db, this.worker.leases);
  }

  renew(lease: Lease<K>): Promise<boolean> {
    const { db } = this.deps;
    return leases.renew(db, this.worker.leases, lease.key.key, this.holder, this.options.leaseMs);
  }

  advance(lease: Lease<K>, seq: number): Promise<boolean> {
    const { db } = this.deps;
    const { leaseMs } = this.options;
    return leases.advance(db, this.worker.leases, lease.key.key, this.holder, seq, leaseMs);
  }

  /** The loop of `Lease.follow`. */
  async follow(lease: Lease<K>): Promise<boolean> {
    const { pageSize } = this.options;
    for (;;) {
      if (lease.over) return false;
      const page = await this.deps.read(lease.key.accountId, lease.cursor, pageSize);
      if (page.resync) {
        if (!(await this.worker.resync(lease))) return false;
        continue;
      }
      const last = page.events.at(-1);
      if (!last) {
        // Nothing after the cursor: it may stand at the seq the key was listed with.
        const listed = lease.key.eventSeq ?? lease.cursor;
        if (listed > lease.cursor && !(await lease.advance(listed))) return false;
        return true;
      }
      const handled = (await this.worker.handle(page.events, lease)) ?? {};
      if (handled.failures?.length) await this.recordFailures(handled.failures);
      if (handled.stopped) return false;
      const through = handled.through ?? last.seq;
      if (!(await lease.advance(through))) return false;
      if (this.worker.advanced && !(await this.worker.advanced(lease))) return false;
      if (through < last.seq) return false;
      // A page may be short of `pageSize` by its bytes: done only past the seq listed.
      const listed = lease.key.eventSeq;
      if (page.events.length < pageSize && listed !== undefined && through >= listed) return true;
    }
  }

  /** Records rows the worker skips from now on, each with a warning in the log. */
  async recordFailures(failures: RowFailure[]): Promise<void> {
    if (failures.length === 0) return;
    await this.worker.recordFailures?.(failures);
    for (const failure of failures) {
      this.deps.warn?.(
        { ...failure },
        `${failure.worker}: a row could not be handled; skipped until it changes`,
      );
    }
  }
}

/**
 * A worker's follower on its schedule, for a worker with nothing else to
 * run (a retention sweep, say): `scheduler.start()`, `nudge()` after writes,
 * `drain()` in tests and `close()` on shutdown. A failed run goes to
 * `onError` and is tried again on the schedule.
 */
export function scheduledFollower<K extends WorkKey>(
  worker: FollowerWorker<K>,
  deps: FollowerDeps,
  options: FollowerOptions,
  schedule: ScheduleOptions<FollowRun>,
  onError: (error: unknown) => void,
): { follower: Follower<K>; scheduler: Scheduler<FollowRun> } {
  const scheduler: Scheduler<FollowRun> = new Scheduler<FollowRun>(
    async (only) => {
      const run = await follower.run(only);
      if (run.error !== undefined && !scheduler.closed) onError(run.error);
      return run;
    },
    { keys: 0, units: 0, more: false },
    schedule,
  );
  const follower = new Follower(worker, deps, options, () => scheduler.closed);
  return { follower, scheduler };
}
