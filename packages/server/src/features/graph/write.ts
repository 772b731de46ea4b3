import {
  formatBytes,
  UNLIMITED,
  type GraphChange,
  type GraphChangePayload,
  type GraphEventType,
  type Plan,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { sendAhead } from '../../db/pipeline.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import type { ChangeEvent } from '../../lib/change-event.js';
import { fromDatabaseError, notFound, planLimit } from '../../lib/errors.js';
import { currentPlan } from '../entitlements/index.js';
import type { AccountGate } from './account-gate.js';
import * as changeRepo from './changes.repository.js';
import type { ObservationCount } from './observations.repository.js';

/**
 * `write()`: the one way into the graph's tables (README.md, step by step).
 * A call runs in one transaction under its account's lock; its statements
 * record events through the scope; the change-log append checks the plan's
 * limits and carries the COMMIT; the events are published after it.
 */

export interface WriteDeps {
  db: Db;
  /** The one clock: change events carry its time, live and replayed alike. */
  now: () => Date;
  /** Receives each write's events after its transaction commits (realtime fan-out). */
  publish?: (events: ChangeEvent[]) => void;
  /**
   * The plan whose storage limits apply; the runtime answers from
   * entitlements' short-lived copy (decision 009). Without one (deps built
   * outside a runtime) the row is read directly.
   */
  planOf?: (db: Db, accountId: string) => Promise<Plan>;
  /** Keeps an account's writers from taking every pooled connection while they wait for its lock. */
  writers?: AccountGate;
}

/** One write transaction: its connection, the space it writes, and the events it records. */
export interface WriteScope {
  trx: Db;
  /** The space whose graph rows the write touches (the account's lock and limits are the write's own). */
  spaceId: string;
  emit<T extends GraphEventType>(type: T, payload: GraphChangePayload<T>): void;
  /** Entities whose observations grew, with their counts now (the per-entity limit's message). */
  grew(counts: ObservationCount[]): void;
  /**
   * The place, among the write's events, of those the next statement stages
   * itself (migration 030). With `last`, that statement is the write's last
   * and goes with the append and COMMIT behind it in one message (decision
   * 034): nothing may run in the transaction after it.
   */
  stage(last?: boolean): changeRepo.Staging;
}

/** How a write call is recorded: the call it reverts. */
export interface CallOptions {
  reverts?: number | undefined;
}

/** A committed call: what `fn` answered, and the seqs its events got, in order (none when it changed nothing). */
export interface Written<T> {
  result: T;
  seqs: number[];
}

/**
 * Runs `fn` as one call: in one transaction under the account lock, its
 * events appended (and the plan's limits checked) by the statement that
 * commits, then published. A rolled-back call publishes nothing. A race that
 * slips past a check surfaces as a constraint violation, which becomes the
 * same 409/404 the check would have given. The account's other calls wait
 * in `writers` (decision 030), not in the pool. Answers `fn`'s result and
 * the call's seqs: the first is history's `callSeq`, which
 * `POST /api/changes/{seq}/revert` undoes.
 */
export async function write<T>(
  deps: WriteDeps,
  auth: SpaceAuth,
  fn: (scope: WriteScope) => Promise<T>,
  call: CallOptions = {},
): Promise<Written<T>> {
  try {
    // Read before the lock: a node's copy (entitlements), seldom a statement.
    const plan = await (deps.planOf ?? currentPlan)(deps.db, auth.accountId);
    const transaction = () =>
      deps.db.transaction().execute((trx) => {
        const open = new OpenCall(trx, auth, plan, deps.now, call.reverts);
        return open.run(fn);
      });
    const { result, appended, events } = await (deps.writers?.run(auth.accountId, transaction) ??
      transaction());
    if (appended.count > 0) publish(deps, auth, appended, events);
    const seqs = Array.from({ length: appended.count }, (_, index) => appended.first + index);
    return { result, seqs };
  } catch (error) {
    throw fromDatabaseError(error) ?? error;
  }
}

/**
 * A call inside its transaction, from the lock to the append: the events its
 * statements recorded, in order, and the largest observation count they left.
 */
class OpenCall {
  private readonly events: changeRepo.LoggedEvent[] = [];
  private largest: ObservationCount | undefined;
  private slots = 0;
  /** The append, once sent right behind the call's last statement (decision 034). */
  private sent: Promise<changeRepo.Appended> | undefined;

  constructor(
    private readonly trx: Db,
    private readonly auth: SpaceAuth,
    private readonly plan: Plan,
    private readonly now: () => Date,
    private readonly reverts: number | undefined,
  ) {}

  async run<T>(fn: (scope: WriteScope) => Promise<T>) {
    // Sent ahead: the call's first statement leaves right behind the lock.
    const lock = await changeRepo.lockAccountForWrite(
      this.trx,
      this.auth.accountId,
      this.auth.space.id,
    );
    let result: T;
    try {
      result = await fn(this.scope());
    } catch (error) {
      // The lock's answer first: a gone account or space explains the call's failure.
      await writable(lock.answer);
      throw error;
    }
    await writable(lock.answer);
    const appended = await (this.sent ?? this.append()).catch((error: unknown) => {
      throw this.refusal(error);
    });
    return { result, appended, events: this.events };
  }

  private scope(): WriteScope {
    return {
      trx: this.trx,
      spaceId: this.auth.space.id,
      emit: (type, payload) => {
        if (this.sent) throw new Error('The write was already sent with its last statement');
        this.events.push({ type, payload } as GraphChange);
      },
      grew: (counts) => {
        for (const count of counts) {
          if (count.observations_count > (this.largest?.observations_count ?? -1)) {
            this.largest = count;
          }
        }
      },
      stage: (last = false) => {
        const slot = this.slots++;
        this.events.push({ staged: slot });
        if (!last) return { slot };
        return {
          slot,
          send: async (query) => {
            const { rows } = await sendAhead(this.trx, query);
            this.sent = this.append();
            this.sent.catch(() => undefined); // read in run(), unless the statement failed
            return rows;
          },
        };
      },
    };
  }

  /** The change-log append with its COMMIT, checking the plan's limits against what the statements kept. */
  private async append(): Promise<changeRepo.Appended> {
    const { auth } = this;
    const { maxEntities, maxStorageBytes, maxObservationsPerEntity } = this.plan.features;
    const sent = await changeRepo.sendAppend(
      this.trx,
      auth.accountId,
      auth.space.id,
      this.events,
      {
        // The person behind the credential (a key's creator, the user who
        // connected an app: history's "who"), and the origin, so a replay
        // after a reconnect still names it.
        actor: {
          ...auth.actor,
          userId: auth.userId,
          ...(auth.origin ? { origin: auth.origin } : {}),
        },
        at: this.now(),
        reverts: this.reverts,
      },
      {
        maxEntities: limited(maxEntities),
        maxStorageBytes: limited(maxStorageBytes),
        maxObservationsPerEntity: limited(maxObservationsPerEntity),
        largestObservations: this.largest?.observations_count ?? 0,
      },
    );
    return sent.answer;
  }

  /** The append's refusals in the caller's words: a gone account or space 404, a passed limit 402. */
  private refusal(error: unknown): unknown {
    const code = (error as { code?: unknown }).code;
    const message = (error as Error).message;
    if (code === changeRepo.GONE) return notFound(message === 'Space' ? 'Space' : 'Account');
    if (code !== changeRepo.OVER_PLAN) return error;
    return overPlan(this.plan, message as changeRepo.OverPlan, this.largest);
  }
}

/** Hands a committed call's events, with their seqs, time, space and origin, to `deps.publish`. */
function publish(
  deps: WriteDeps,
  auth: SpaceAuth,
  appended: changeRepo.Appended,
  recorded: changeRepo.LoggedEvent[],
): void {
  // The append's own list when some events were staged by statements.
  const events = (appended.events ?? recorded) as GraphChange[];
  const at = appended.at.toISOString();
  deps.publish?.(
    events.map((event, index) => ({
      ...event,
      accountId: auth.accountId,
      spaceId: auth.space.id,
      space: auth.space.slug,
      seq: appended.first + index,
      at,
      ...(auth.origin ? { origin: auth.origin } : {}),
    })),
  );
}

/**
 * The account's lock, refusing a write into an account being deleted (a
 * request that began before DELETE /auth/me) or a space deleted (its DELETE):
 * nothing may be written into either.
 */
async function writable(
  answer: Promise<changeRepo.AccountLock | undefined>,
): Promise<changeRepo.AccountLock> {
  const locked = await answer;
  if (!locked) throw notFound('Account');
  if (!locked.spaceLive) throw notFound('Space');
  return locked;
}

/** A plan limit as the append checks it: null for none. */
function limited(limit: number): number | null {
  return limit === UNLIMITED ? null : limit;
}

/** The error for a write its plan refused, in the words of the limit it would pass. */
function overPlan(
  plan: Plan,
  limit: changeRepo.OverPlan,
  largest: ObservationCount | undefined,
): Error {
  const { maxEntities, maxStorageBytes, maxObservationsPerEntity } = plan.features;
  if (limit === 'entities') {
    return planLimit(
      `Entity limit reached: the ${plan.name} plan allows ${maxEntities.toLocaleString('en-US')} entities. Upgrade your plan to add more.`,
    );
  }
  if (limit === 'storage') {
    return planLimit(
      `Storage limit reached: the ${plan.name} plan allows ${formatBytes(maxStorageBytes)} of stored memory. Delete something or upgrade your plan.`,
    );
  }
  return planLimit(
    `Observation limit reached: the ${plan.name} plan allows ${maxObservationsPerEntity.toLocaleString('en-US')} observations per entity ("${largest!.name}" would have ${largest!.observations_count.toLocaleString('en-US')}). Upgrade your plan to add more.`,
  );
}
