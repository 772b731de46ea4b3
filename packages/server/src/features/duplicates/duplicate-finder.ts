import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/connection.js';
import * as repo from './duplicates.repository.js';
import * as log from './finder.repository.js';
import { compareEntities } from './finder-compare.js';
import { isRowFault, reasonOf, STOPPED_ON_IT, type RowFailure } from './finder-faults.js';

/**
 * Keeps each space's candidate pairs (`duplicate_pairs`) in step with its
 * graph, in the background and never inside a write (docs/consolidation.md,
 * "Background upkeep"). Per account it holds a position in the change log:
 * the entities the events after it name are compared again — each with the
 * few others its blocking keys find (blocking.ts), and those it is paired
 * with now — and the position moves past them. When there is no position to
 * resume from (an account seen for the first time, or a log
 * compacted past it), every live space is scanned by entity id, from a seq
 * noted first, and the log applies from there.
 *
 * One node works on an account at a time (a lease); a run does a bounded
 * amount of work (`entitiesPerRun`), so one big import leaves the others their
 * turn, and the next run follows after a breath while work is left.
 *
 * A row it cannot compare never stops it: the entity is recorded
 * (`duplicate_failures`), logged as a warning with its id and the error's
 * kind, and skipped until a later change renames it; the others are compared
 * all the same (`compareGuarded`). And a row that stops the process cannot
 * stop it at every start: an account a process left without releasing it is
 * compared next one entity at a time, each noted first, and an entity found
 * still noted the time after is recorded and skipped.
 */

export interface FinderOptions {
  /** Pause between runs with nothing left to do (a write on this node wakes it sooner). */
  pollMs: number;
  /** Entities compared per run at most; the next run follows at once. */
  entitiesPerRun: number;
  /** Entities compared together (a few statements each). */
  chunk: number;
  /** Change-log events read per page. */
  eventsPage: number;
  /** How long a node holds an account it works on; renewed with every step. */
  leaseMs: number;
  /** Accounts looked at per run. */
  accountsPerRun: number;
  /** Others an entity is compared with at most (besides those it is paired with now). */
  perEntity: number;
  /**
   * After each chunk during which requests came, the finder rests this many
   * times as long as the chunk took, so that catching up (an import) leaves
   * the database to the requests most of the time: on PGlite, one thread
   * runs every statement. While none come it does not rest.
   */
  restRatio: number;
}

export const DEFAULT_FINDER: FinderOptions = {
  pollMs: 5_000,
  entitiesPerRun: 1_000,
  chunk: 100,
  eventsPage: 500,
  leaseMs: 60_000,
  accountsPerRun: 20,
  perEntity: 100,
  restRatio: 1,
};

/** The finder waits for writes to pause this long (a bulk load sends a call every few hundred ms). */
const NUDGE_AFTER_MS = 1_000;
/** Writes that never pause for NUDGE_AFTER_MS still let the finder run this long after the first. */
const NUDGE_WITHIN_MS = 30_000;
/** The pause between runs while work is left (other statements get their turn on PGlite). */
const BREATH_MS = 50;
/** The first run after start: soon, but not during it. */
const FIRST_RUN_MS = 1_000;
/** The longest rest between two chunks. */
const MAX_REST_MS = 2_000;
/** A request that began this long before a chunk, or during it, makes the finder rest after it. */
const REQUESTS_NEAR_MS = 250;
/** Events behind below which the finder always follows the log (a scan costs at least this). */
const SCAN_BEHIND_MIN = 1_000;

export { formsOf, keyHash } from './finder-compare.js';

/** What one run did. */
export interface FinderRun {
  accounts: number;
  entities: number;
  /** Work was left for the next run. */
  more: boolean;
  error?: unknown;
}

type Budget = { entities: number };

export class DuplicateFinder {
  private readonly options: FinderOptions;
  private readonly holder = randomUUID();
  /** Cuts a rest short: when the finder closes, or when a reader waits for it (`hurry`). */
  private restCut = new AbortController();
  /** Readers waiting in `hurry`: while there are any, steps do not rest. */
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<FinderRun> | undefined;
  private scheduled = false;
  private closed = false;
  private nudged = false;
  /** True while `drain` runs: its steps do not rest. */
  private draining = false;
  /** When the last write this node published committed (the finder steps aside while they come). */
  private lastWriteAt = -Infinity;
  /** When the first write of the current burst woke the finder. */
  private firstNudgeAt = 0;
  private again = false;

  /** The account whose last holder stopped mid-run: its entities are compared one at a time. */
  private careful: string | undefined;

  constructor(
    /**
     * `lastRequestAt` (FeatureContext): without it, the finder rests after
     * every chunk. `warn`: a row it skipped (never any of the row's text).
     */
    private readonly deps: {
      db: Db;
      lastRequestAt?: () => number;
      warn?: (failure: RowFailure, message: string) => void;
    },
    options: Partial<FinderOptions> = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.options = { ...DEFAULT_FINDER, ...options };
  }

  /** Runs soon after start, then every `pollMs`, at once while work is left, and after writes. */
  start(): void {
    if (this.closed || this.scheduled) return;
    this.scheduled = true;
    this.wake(FIRST_RUN_MS);
  }

  /** Ends the schedule (runs by hand, `drain`, still work); resolves when the run under way ends. */
  async stop(): Promise<void> {
    this.scheduled = false;
    this.nudged = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Stops for good: the run under way ends at its next step. */
  async close(): Promise<void> {
    this.closed = true;
    this.restCut.abort();
    await this.stop();
  }

  /**
   * A write has committed: look for work once writes pause for
   * NUDGE_AFTER_MS, so a burst of writes (a bulk load) is not slowed by the
   * finder beside it; but never later than NUDGE_WITHIN_MS after the first.
   */
  nudge(): void {
    if (!this.scheduled || this.closed) return;
    this.lastWriteAt = performance.now();
    if (this.running) {
      this.again = true;
      return;
    }
    const now = this.lastWriteAt;
    if (!this.nudged) {
      this.nudged = true;
      this.firstNudgeAt = now;
    }
    if (now - this.firstNudgeAt < NUDGE_WITHIN_MS) this.wake(NUDGE_AFTER_MS);
  }

  /** A reader waits for the list to fill: run shortly, without postponing a run already due. */
  soon(): void {
    if (!this.scheduled || this.closed || this.running || this.nudged) return;
    this.nudged = true;
    this.firstNudgeAt = performance.now();
    this.wake(NUDGE_AFTER_MS);
  }

  /**
   * A reader found its account a little behind and waits for the list: the
   * run under way ends without its rests, then runs of that account alone,
   * without resting, until nothing is left to compare or `ms` have passed.
   * The reader wants the answer more than the requests beside it want the
   * database; callers keep this to small backlogs, and the rests resume after.
   */
  async hurry(accountId: string, ms: number): Promise<void> {
    if (!this.scheduled || this.closed) return;
    const until = performance.now() + ms;
    this.waiting++;
    this.restCut.abort();
    this.restCut = new AbortController();
    try {
      while (performance.now() < until && !this.closed) {
        if (this.running) {
          await this.running;
          continue;
        }
        const running = this.run(accountId);
        this.running = running.finally(() => (this.running = undefined));
        const run = await running;
        if (run.error || !run.more) return;
      }
    } finally {
      this.waiting--;
    }
  }

  /** One run now (or the one under way). */
  runOnce(): Promise<FinderRun> {
    if (this.closed) return Promise.resolve({ accounts: 0, entities: 0, more: false });
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Runs until nothing is left to compare (tests; throws what a run failed with). */
  async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let runs = 0; runs < 10_000; runs++) {
        const run = await this.runOnce();
        if (run.error) throw run.error;
        if (!run.more && run.accounts === 0) return;
      }
      throw new Error('duplicate finder: still busy after 10,000 runs');
    } finally {
      this.draining = false;
    }
  }

  private wake(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.nudged = false;
    const run = await this.runOnce();
    if (!this.scheduled || this.closed) return;
    const more = (run.more && !run.error) || this.again;
    this.again = false;
    this.wake(more ? BREATH_MS : this.options.pollMs);
  }

  /** One run: the accounts left longest first, or `only` that one. */
  private async run(only?: string): Promise<FinderRun> {
    const run: FinderRun = { accounts: 0, entities: 0, more: false };
    const budget: Budget = { entities: this.options.entitiesPerRun };
    const { db } = this.deps;
    try {
      const accounts = await log.accountsWithWork(db, this.options.accountsPerRun, only);
      run.more = !only && accounts.length === this.options.accountsPerRun;
      // Each account's share of the run, so that one import does not hold the others to the next run.
      const share = Math.max(
        this.options.chunk,
        Math.ceil(this.options.entitiesPerRun / Math.max(accounts.length, 1)),
      );
      for (const account of accounts) {
        if (this.closed || budget.entities <= 0) {
          run.more = true;
          break;
        }
        const claimed = await log.claimAccount(db, account.id, {
          holder: this.holder,
          leaseMs: this.options.leaseMs,
          eventSeq: account.eventSeq,
        });
        if (!claimed) continue;
        let state: log.StateRow = claimed;
        if (claimed.unclean) await this.stoppedBefore(claimed);
        const behind = account.eventSeq - state.applied_seq;
        if (state.scan_seq === null && behind > Math.max(account.entities, SCAN_BEHIND_MIN)) {
          // Following a log longer than the account has entities costs more than comparing
          // each entity once: a bulk load's relations name every entity again, twice.
          await log.restartScan(db, account.id, this.holder, account.eventSeq);
          state = { ...state, scan_seq: account.eventSeq, scan_space: null, scan_cursor: null };
        }
        run.accounts += 1;
        const own: Budget = { entities: Math.min(share, budget.entities) };
        const before = own.entities;
        try {
          const done =
            state.scan_seq !== null ? await this.scan(state, own) : await this.apply(state, own);
          if (!done) run.more = true;
        } finally {
          this.careful = undefined;
          budget.entities -= before - own.entities;
          run.entities += before - own.entities;
          await log.releaseAccount(db, account.id, this.holder);
        }
      }
    } catch (error) {
      run.error = error;
      if (!this.closed) this.onError(error);
    }
    return run;
  }

  /**
   * Every live space of the account by entity id, a chunk at a time, from
   * where the last run stopped; then the log from the seq the scan started
   * at. True when nothing is left for now.
   */
  private async scan(state: log.StateRow, budget: Budget): Promise<boolean> {
    const { db } = this.deps;
    const accountId = state.account_id;
    const scanSeq = state.scan_seq ?? 0;
    let space = state.scan_space ?? (await log.nextSpace(db, accountId, null)) ?? null;
    let cursor = state.scan_cursor;
    for (;;) {
      if (space === null) {
        await log.finishScan(db, accountId, this.holder);
        return this.apply(
          { ...state, applied_seq: Math.max(state.applied_seq, scanSeq), scan_seq: null },
          budget,
        );
      }
      if (this.closed || budget.entities <= 0) return false;
      const ids = await log.entityIdsAfter(db, space, cursor, this.options.chunk);
      const last = ids.length < this.options.chunk;
      // Entities deleted while no position was kept leave names behind: those in this page's range go.
      await repo.sweepRange(db, space, {
        after: cursor,
        through: last ? null : ids.at(-1)!,
        present: ids,
      });
      const current = space;
      await this.step(() => this.compareGuarded(accountId, current, ids, scanSeq, new Map()));
      budget.entities -= Math.max(1, ids.length);
      if (last) {
        space = (await log.nextSpace(db, accountId, space)) ?? null;
        cursor = null;
        if (space === null) continue;
      } else {
        cursor = ids.at(-1)!;
      }
      const ours = await log.saveScan(db, accountId, this.holder, {
        space,
        cursor,
        leaseMs: this.options.leaseMs,
      });
      if (!ours) return false;
    }
  }

  /**
   * The events after the applied position name the entities that changed,
   * each in its event's space: they are compared again, then the position
   * moves past those events. A log compacted past the position starts a scan.
   */
  private async apply(state: log.StateRow, budget: Budget): Promise<boolean> {
    const { db } = this.deps;
    const accountId = state.account_id;
    let applied = state.applied_seq;
    for (;;) {
      if (this.closed || budget.entities <= 0) return false;
      const events = await log.changesAfter(db, accountId, applied, this.options.eventsPage);
      const first = events[0];
      if (!first || first.seq !== applied + 1) {
        const bounds = await log.logBounds(db, accountId);
        if (bounds.compacted > applied) {
          await log.restartScan(db, accountId, this.holder, bounds.latest);
          return false;
        }
        if (!first) return true;
      }
      for (const [space, changed] of changesBySpace(events)) {
        const ids = [...changed.ids];
        for (let start = 0; start < ids.length; start += this.options.chunk) {
          if (this.closed) return false;
          const chunk = ids.slice(start, start + this.options.chunk);
          await this.step(() => this.compareGuarded(accountId, space, chunk, 0, changed.names));
          budget.entities -= chunk.length;
        }
      }
      applied = events.at(-1)!.seq;
      const ours = await log.setApplied(db, accountId, this.holder, applied, this.options.leaseMs);
      if (!ours) return false;
      if (events.length < this.options.eventsPage) return true;
    }
  }

  /**
   * The account's last holder left it without releasing it: the process
   * stopped mid-run (or stalled past its lease). When it was then comparing
   * one entity alone, that entity is the likely cause: it is recorded and
   * skipped. Either way this turn compares the account one entity at a time.
   */
  private async stoppedBefore(state: log.ClaimedState): Promise<void> {
    const [id] = state.working_ids ?? [];
    if (state.working_space && id && state.working_ids!.length === 1) {
      await this.recordFailures(state.working_space, [{ id, reason: STOPPED_ON_IT }]);
    }
    this.careful = state.account_id;
  }

  /**
   * `compareEntities`, a failing row kept from failing the chunk: an error
   * of a statement the row caused compares the chunk's entities again one at
   * a time, and the one that fails alone is recorded and skipped. Any other
   * error fails the run (the database is away, or busy), tried again later.
   * After a stop mid-run (`careful`), each entity is noted before it is
   * compared alone.
   */
  private async compareGuarded(
    accountId: string,
    space: string,
    ids: string[],
    renamedAt: number,
    eventNames: Map<string, { name: string; seq: number }[]>,
  ): Promise<void> {
    const { db } = this.deps;
    const compare = async (chunk: string[]) => {
      const failed = await compareEntities(
        db,
        space,
        chunk,
        renamedAt,
        eventNames,
        this.options.perEntity,
      );
      await this.recordFailures(
        space,
        [...failed].map(([id, error]) => ({ id, reason: reasonOf(error) })),
      );
    };
    const careful = this.careful === accountId;
    if (!careful) {
      try {
        return await compare(ids);
      } catch (error) {
        if (this.closed || !isRowFault(error)) throw error;
        if (ids.length === 1) {
          return this.recordFailures(space, [{ id: ids[0]!, reason: reasonOf(error) }]);
        }
      }
    }
    for (const id of ids) {
      if (this.closed) return;
      if (careful) await log.noteWorking(db, accountId, this.holder, { space, ids: [id] });
      try {
        await compare([id]);
      } catch (error) {
        if (this.closed || !isRowFault(error)) throw error;
        await this.recordFailures(space, [{ id, reason: reasonOf(error) }]);
      }
    }
    // Compared: a stop from here on is no entity's doing.
    if (careful) await log.noteWorking(db, accountId, this.holder, null);
  }

  /** Records entities the finder skips from now on, each with a warning in the log. */
  private async recordFailures(
    space: string,
    failures: { id: string; reason: string }[],
  ): Promise<void> {
    if (failures.length === 0) return;
    await repo.recordFailures(this.deps.db, space, failures);
    for (const { id, reason } of failures) {
      this.deps.warn?.(
        { worker: 'duplicate finder', spaceId: space, entityId: id, reason },
        'duplicate finder: an entity could not be compared; skipped until it is renamed',
      );
    }
  }

  /**
   * One chunk's comparison, then a rest in proportion (`restRatio`) when
   * requests came meanwhile, longer while writes keep coming (up to
   * MAX_REST_MS), unless closing or a reader waits. With no request near,
   * nobody waits for the database: the next chunk follows at once.
   */
  private async step(work: () => Promise<void>): Promise<void> {
    const started = performance.now();
    await work();
    // Draining (tests) takes the database to itself: nothing else is waiting for it.
    if (this.draining || this.waiting > 0) return;
    const ended = performance.now();
    const writing = () => performance.now() - this.lastWriteAt < NUDGE_AFTER_MS;
    const lastRequestAt = this.deps.lastRequestAt?.() ?? Infinity;
    let rest =
      lastRequestAt >= started - REQUESTS_NEAR_MS ? (ended - started) * this.options.restRatio : 0;
    const resting = () => !this.closed && this.waiting === 0;
    const left = () => MAX_REST_MS - (performance.now() - ended);
    while ((rest > 0 || writing()) && resting() && left() > 0) {
      await sleep(Math.min(rest > 0 ? rest : NUDGE_AFTER_MS, left()), undefined, {
        signal: this.restCut.signal,
      }).catch(() => undefined);
      rest = 0;
    }
  }
}

/** The entities a page of events names, by space, with the names entity events gave them. */
function changesBySpace(
  events: log.ChangeRow[],
): Map<string, { ids: Set<string>; names: Map<string, { name: string; seq: number }[]> }> {
  const bySpace = new Map<
    string,
    { ids: Set<string>; names: Map<string, { name: string; seq: number }[]> }
  >();
  for (const event of events) {
    let changed = bySpace.get(event.space_id);
    if (!changed) bySpace.set(event.space_id, (changed = { ids: new Set(), names: new Map() }));
    for (const id of [event.entity_id, event.from_id, event.to_id, ...(event.merged ?? [])]) {
      if (id) changed.ids.add(id);
    }
    if (event.entity_id && event.name !== null) {
      const names = changed.names.get(event.entity_id) ?? [];
      names.push({ name: event.name, seq: event.seq });
      changed.names.set(event.entity_id, names);
    }
  }
  return bySpace;
}
