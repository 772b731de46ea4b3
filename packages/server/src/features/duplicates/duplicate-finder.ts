import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/connection.js';
import { Follower, type ChangeReader, type Lease } from '../../follower/follower.js';
import type { LeaseTable } from '../../follower/leases.repository.js';
import { guarded, reasonOf, STOPPED_ON_IT, type RowFailure } from '../../follower/row-faults.js';
import { Scheduler } from '../../follower/scheduler.js';
import type { ChangeEvent } from '../../lib/change-event.js';
import { changeLogReader, latestSeq } from '../history/index.js';
import * as repo from './duplicates.repository.js';
import * as log from './finder.repository.js';
import { compareEntities } from './finder-compare.js';

/**
 * Keeps each space's candidate pairs (`duplicate_pairs`) in step with its
 * graph, in the background and never inside a write (docs/consolidation.md,
 * "Background upkeep"). It is a follower of the change log (follower/): per
 * account, the entities the events after its position name are compared
 * again — each with the few others its blocking keys find (blocking.ts), and
 * those it is paired with now. When there is no position to resume from (an
 * account seen for the first time, or a log compacted past it), every live
 * space is scanned by entity id, from a seq noted first, and the log applies
 * from there.
 *
 * A row it cannot compare never stops it: the entity is recorded
 * (`duplicate_failures`), logged with its id and the error's kind, and
 * skipped until a later change renames it. An account a process left without
 * releasing it is compared next one entity at a time, each noted first, and
 * an entity found still noted the time after is recorded and skipped.
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

/** Events behind below which the finder always follows the log (a scan costs at least this). */
const SCAN_BEHIND_MIN = 1_000;

/** Its state table (migrations 031, 034): a row per account, made on its first claim. */
const FINDER_LEASES: LeaseTable = {
  table: 'duplicate_state',
  key: 'account_id',
  cursor: 'applied_seq',
  touched: 'updated_at',
  clearOnRelease: ['working_space', 'working_ids'],
};

export { formsOf, keyHash } from './finder-compare.js';

/** What one run did. */
export interface FinderRun {
  accounts: number;
  entities: number;
  /** Work was left for the next run. */
  more: boolean;
  error?: unknown;
}

type Account = { key: string; accountId: string; eventSeq: number; entities: number };
type Names = Map<string, { name: string; seq: number }[]>;

export class DuplicateFinder {
  private readonly options: FinderOptions;
  private readonly follower: Follower<Account>;
  private readonly schedule: Scheduler<FinderRun>;
  /** The account whose last holder stopped mid-run: its entities are compared one at a time. */
  private careful: string | undefined;

  constructor(
    /**
     * `lastRequestAt` (FeatureContext): without it, the finder rests after
     * every chunk. `warn`: a row it skipped (never any of the row's text).
     * `read`: history's change-log reader (by default over `db`).
     */
    private readonly deps: {
      db: Db;
      lastRequestAt?: () => number;
      warn?: (failure: RowFailure, message: string) => void;
      read?: ChangeReader;
    },
    options: Partial<FinderOptions> = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.options = { ...DEFAULT_FINDER, ...options };
    const { db } = deps;
    this.schedule = new Scheduler<FinderRun>(
      (only) => this.run(only),
      { accounts: 0, entities: 0, more: false },
      {
        pollMs: this.options.pollMs,
        firstRunMs: 1_000,
        drained: (run) => !run.more && run.accounts === 0,
        rests: { lastRequestAt: deps.lastRequestAt, restRatio: this.options.restRatio },
      },
    );
    this.follower = new Follower<Account>(
      {
        name: 'duplicate finder',
        leases: FINDER_LEASES,
        keysWithWork: async (limit, only) =>
          (await log.accountsWithWork(db, limit, only)).map((a) => ({
            ...a,
            key: a.id,
            accountId: a.id,
          })),
        firstState: (account) => ({ scan_seq: account.eventSeq }),
        visit: (lease) => this.visit(lease),
        handle: (batch, lease) => this.handle(batch, lease),
        resync: async (lease) => {
          await log.restartScan(
            db,
            lease.key.accountId,
            lease.holder,
            await latestSeq(db, lease.key.accountId),
          );
          return false;
        },
        recordFailures: (failures) => this.recordFailures(failures),
      },
      { db, read: deps.read ?? changeLogReader(db), warn: deps.warn },
      {
        keysPerRun: this.options.accountsPerRun,
        pageSize: this.options.eventsPage,
        leaseMs: this.options.leaseMs,
        unitsPerRun: this.options.entitiesPerRun,
        minShare: this.options.chunk,
      },
      () => this.schedule.closed,
    );
  }

  /** Runs soon after start, then every `pollMs`, at once while work is left, and after writes. */
  start(): void {
    this.schedule.start();
  }

  /** Ends the schedule (runs by hand, `drain`, still work); resolves when the run under way ends. */
  stop(): Promise<void> {
    return this.schedule.stop();
  }

  /** Stops for good: the run under way ends at its next step. */
  close(): Promise<void> {
    return this.schedule.close();
  }

  /** A write has committed: look for work once writes pause (Scheduler.nudge). */
  nudge(): void {
    this.schedule.nudge();
  }

  /** A reader waits for the list to fill: run shortly, without postponing a run already due. */
  soon(): void {
    this.schedule.soon();
  }

  /** A reader found its account a little behind and waits: runs of it alone, without rests (Scheduler.hurry). */
  hurry(accountId: string, ms: number): Promise<void> {
    return this.schedule.hurry(accountId, ms);
  }

  /** One run now (or the one under way). */
  runOnce(): Promise<FinderRun> {
    return this.schedule.runOnce();
  }

  /** Runs until nothing is left to compare (tests; throws what a run failed with). */
  drain(): Promise<void> {
    return this.schedule.drain();
  }

  /** One run: the accounts left longest first, or `only` that one. */
  private async run(only?: string): Promise<FinderRun> {
    const run = await this.follower.run(only);
    if (run.error && !this.schedule.closed) this.onError(run.error);
    return { accounts: run.keys, entities: run.units, more: run.more, error: run.error };
  }

  /** An account's turn: a scan when it has no position to follow from, then the log. */
  private async visit(lease: Lease<Account>): Promise<boolean> {
    const { db } = this.deps;
    const { accountId, eventSeq, entities } = lease.key;
    let state = await log.stateOf(db, accountId);
    if (!state) return true;
    try {
      if (lease.unclean) await this.stoppedBefore(state);
      if (
        state.scan_seq === null &&
        eventSeq - lease.cursor > Math.max(entities, SCAN_BEHIND_MIN)
      ) {
        // Following a log longer than the account has entities costs more than comparing
        // each entity once: a bulk load's relations name every entity again, twice.
        await log.restartScan(db, accountId, lease.holder, eventSeq);
        state = { ...state, scan_seq: eventSeq, scan_space: null, scan_cursor: null };
      }
      return state.scan_seq !== null ? await this.scan(state, lease) : await lease.follow();
    } finally {
      this.careful = undefined;
    }
  }

  /**
   * Every live space of the account by entity id, a chunk at a time, from
   * where the last run stopped; then the log from the seq the scan started
   * at. True when nothing is left for now.
   */
  private async scan(state: log.StateRow, lease: Lease<Account>): Promise<boolean> {
    const { db } = this.deps;
    const { accountId } = lease.key;
    const scanSeq = state.scan_seq ?? 0;
    let space = state.scan_space ?? (await log.nextSpace(db, accountId, null)) ?? null;
    let cursor = state.scan_cursor;
    for (;;) {
      if (space === null) {
        await log.finishScan(db, accountId, lease.holder);
        lease.cursor = Math.max(lease.cursor, scanSeq);
        return lease.follow();
      }
      if (lease.over) return false;
      const ids = await log.entityIdsAfter(db, space, cursor, this.options.chunk);
      const last = ids.length < this.options.chunk;
      // Entities deleted while no position was kept leave names behind: those in this page's range go.
      await repo.sweepRange(db, space, {
        after: cursor,
        through: last ? null : ids.at(-1)!,
        present: ids,
      });
      await this.compareGuarded(accountId, space, ids, scanSeq, new Map(), lease.holder);
      lease.units -= Math.max(1, ids.length);
      if (last) {
        space = (await log.nextSpace(db, accountId, space)) ?? null;
        cursor = null;
        if (space === null) continue;
      } else {
        cursor = ids.at(-1)!;
      }
      const ours = await log.saveScan(db, accountId, lease.holder, {
        space,
        cursor,
        leaseMs: this.options.leaseMs,
      });
      if (!ours) return false;
    }
  }

  /** A page of the log: the entities its events name are compared again, in chunks. */
  private async handle(batch: ChangeEvent[], lease: Lease<Account>) {
    for (const [space, changed] of changesBySpace(batch)) {
      const ids = [...changed.ids];
      for (let start = 0; start < ids.length; start += this.options.chunk) {
        if (this.schedule.closed) return { stopped: true };
        const chunk = ids.slice(start, start + this.options.chunk);
        await this.compareGuarded(
          lease.key.accountId,
          space,
          chunk,
          0,
          changed.names,
          lease.holder,
        );
        lease.units -= chunk.length;
      }
    }
    return {};
  }

  /**
   * The account's last holder left it without releasing it: the process
   * stopped mid-run (or stalled past its lease). When it was then comparing
   * one entity alone, that entity is the likely cause: it is recorded and
   * skipped. Either way this turn compares the account one entity at a time.
   */
  private async stoppedBefore(state: log.StateRow): Promise<void> {
    const [id] = state.working_ids ?? [];
    if (state.working_space && id && state.working_ids!.length === 1) {
      await this.follower.recordFailures([this.failure(state.working_space, id, STOPPED_ON_IT)]);
    }
    this.careful = state.account_id;
  }

  /**
   * `compareEntities` as one step (with its rest), a failing row kept from
   * failing the chunk (`guarded`): the one that fails alone is recorded and
   * skipped. After a stop mid-run (`careful`), each entity is noted before
   * it is compared alone.
   */
  private async compareGuarded(
    accountId: string,
    space: string,
    ids: string[],
    renamedAt: number,
    eventNames: Names,
    holder: string,
  ): Promise<void> {
    const { db } = this.deps;
    const started = performance.now();
    const careful = this.careful === accountId;
    const fail = (id: string, reason: string) =>
      this.follower.recordFailures([this.failure(space, id, reason)]);
    await guarded(
      ids,
      async (chunk) => {
        const failed = await compareEntities(
          db,
          space,
          chunk,
          renamedAt,
          eventNames,
          this.options.perEntity,
        );
        await this.follower.recordFailures(
          [...failed].map(([id, error]) => this.failure(space, id, reasonOf(error))),
        );
      },
      {
        failed: fail,
        together: !careful,
        alone: careful
          ? async (id) => void (await log.noteWorking(db, accountId, holder, { space, ids: [id] }))
          : undefined,
        stop: () => this.schedule.closed,
      },
    );
    // Compared: a stop from here on is no entity's doing.
    if (careful) await log.noteWorking(db, accountId, holder, null);
    await this.schedule.rest(started);
  }

  private failure(spaceId: string, entityId: string, reason: string): RowFailure {
    return { worker: 'duplicate finder', spaceId, entityId, reason };
  }

  /** Records entities the finder skips from now on. */
  private async recordFailures(failures: RowFailure[]): Promise<void> {
    const bySpace = new Map<string, { id: string; reason: string }[]>();
    for (const { spaceId, entityId, reason } of failures) {
      bySpace.set(spaceId, [...(bySpace.get(spaceId) ?? []), { id: entityId, reason }]);
    }
    for (const [space, rows] of bySpace) await repo.recordFailures(this.deps.db, space, rows);
  }
}

/** The entities a page of events names, by space, with the names entity events gave them. */
function changesBySpace(events: ChangeEvent[]): Map<string, { ids: Set<string>; names: Names }> {
  const bySpace = new Map<string, { ids: Set<string>; names: Names }>();
  for (const event of events) {
    let changed = bySpace.get(event.spaceId);
    if (!changed) bySpace.set(event.spaceId, (changed = { ids: new Set(), names: new Map() }));
    // Read loosely: a purged entity's payloads are scrubbed.
    const payload = event.payload as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const merged = Array.isArray(payload.mergedIds) ? payload.mergedIds : [];
    const entityId = text(payload.entityId);
    for (const id of [entityId, text(payload.fromEntityId), text(payload.toEntityId), ...merged]) {
      if (typeof id === 'string' && id) changed.ids.add(id);
    }
    const name = text(payload.name);
    if (
      entityId &&
      name !== null &&
      (event.type === 'entity_created' || event.type === 'entity_updated')
    ) {
      const names = changed.names.get(entityId) ?? [];
      names.push({ name, seq: event.seq });
      changed.names.set(entityId, names);
    }
  }
  return bySpace;
}
