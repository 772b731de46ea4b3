import { formatBytes, UNLIMITED } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import { Follower, type Lease } from '../../follower/follower.js';
import type { LeaseTable } from '../../follower/leases.repository.js';
import { Scheduler } from '../../follower/scheduler.js';
import type { ChangeEvent } from '../../lib/change-event.js';
import type { Entitlements } from '../entitlements/index.js';
import { latestSeq, type HistoryService } from '../history/index.js';
import { EMBED_BATCH, EmbeddingError } from './embedding-client.js';
import * as repo from './embeddings.repository.js';
import type { Embedder } from './embeddings.service.js';
import { quantize, toBase64 } from './vectors.js';

/**
 * The semantic index's background job (issue 32): embeds what the accounts'
 * observations lack, never inside a graph write's transaction. How it finds
 * that work without touching the write path: migration 019. It works per
 * account (one lease, one position in the account's change log), and the
 * vectors it stores are per space (migration 022): each event names its
 * space, and a walk goes through the account's spaces (migration 024).
 */

export interface IndexerOptions {
  /** Pause between runs with nothing left to do (and before the first). */
  intervalMs: number;
  /** Texts embedded per run at most (a run also ends with its accounts); the next run follows at once. */
  textsPerRun: number;
  /** Longest one batch request may take. */
  requestTimeoutMs: number;
  /** How long a node holds an account it works on; renewed with every batch. */
  leaseMs: number;
  /** First pause after the endpoint failed; doubled with each failure in a row… */
  backoffMs: number;
  /** …up to this. */
  maxBackoffMs: number;
  /** How long an account whose storage is full waits before it is looked at again. */
  storageRetryMs: number;
}

const DEFAULT_OPTIONS: IndexerOptions = {
  intervalMs: 5_000,
  textsPerRun: 512,
  requestTimeoutMs: 60_000,
  leaseMs: 5 * 60_000,
  backoffMs: 5_000,
  maxBackoffMs: 5 * 60_000,
  storageRetryMs: 10 * 60_000,
};

/** Its state table (migration 019): a row per account, made on its first claim. */
const INDEXER_LEASES: LeaseTable = {
  table: 'embedding_state',
  key: 'account_id',
  cursor: 'applied_seq',
  touched: 'updated_at',
};

/** Accounts looked at per run. */
const ACCOUNTS_PER_RUN = 100;
/** Observations (or vectors) one walk statement reads, and pages (walk or change log) per run. */
const WALK_PAGE = 500;
const WALK_PAGES_PER_RUN = 200;
/** Change-log events applied per step; entities compared per statement. */
const EVENTS_PAGE = 500;
const ENTITIES_PER_STEP = 100;
/** Other models' vectors removed per statement. */
const REMOVE_BATCH = 5_000;
/** Row overhead a vector counts for in `stored_bytes`, as migration 019's trigger counts it. */
const VECTOR_OVERHEAD_BYTES = 100;
/** Dimensions assumed for the storage check before the model's are known. */
const ASSUMED_DIMENSIONS = 1_024;

/** What one run did (tests and logs). */
export interface IndexerRun {
  /** Vectors stored (refused texts' empty markers included). */
  embedded: number;
  /** Vectors removed: their observations gone, or of another model. */
  removed: number;
  accounts: number;
  /** Work was left for the next run. */
  more: boolean;
  /** The endpoint's failure that ended the run (the indexer backs off). */
  failed?: EmbeddingError;
}

/** The account's storage has no room for more vectors: it waits (`storageRetryMs`). */
class StorageFull extends Error {}
/** The indexer is stopping, or the account's lease went to another node (it expired during a long run). */
class Interrupted extends Error {}

type Account = { key: string; accountId: string; eventSeq: number };

/**
 * Embeds what the accounts lack, in the background: started by the runtime
 * only when EMBEDDINGS_URL is set, stopped on close; `runOnce` for tests.
 * A run takes each account with work under a lease (so several nodes share
 * the accounts, never one account), applies its change log (or walks it
 * whole, see migration 019), embeds in batches of EMBED_BATCH outside any
 * transaction and stores each batch in one statement, skipping observations
 * deleted meanwhile. When the endpoint fails the run ends and the next waits
 * longer each time (`backoffMs` doubling up to `maxBackoffMs`); the failure is
 * kept in the database and shown on the dashboard until a request works.
 */
export class EmbeddingIndexer {
  private readonly options: IndexerOptions;
  private readonly abort = new AbortController();
  private readonly schedule: Scheduler<IndexerRun>;
  private readonly follower: Follower<Account>;
  /** The run under way (one at a time): what it did, and the pages (walk or log) it may still read. */
  private tally: IndexerRun = { embedded: 0, removed: 0, accounts: 0, more: false };
  private pages = WALK_PAGES_PER_RUN;
  /** The model's recorded failure may be set (by an earlier run or process) until a request works. */
  private errorShown = true;
  private dimensions: number | undefined;

  constructor(
    private readonly deps: {
      db: Db;
      embedder: Embedder;
      entitlements: Entitlements;
      /** The change log it follows (history's replay by seq). */
      changeLog: Pick<HistoryService, 'changesAfter'>;
    },
    options: Partial<IndexerOptions> = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    const { db } = deps;
    const { intervalMs, backoffMs, maxBackoffMs } = this.options;
    this.schedule = new Scheduler<IndexerRun>(
      () => this.run(),
      { embedded: 0, removed: 0, accounts: 0, more: false },
      {
        pollMs: intervalMs,
        // Work left: go on after a breath (other statements get their turn on PGlite).
        breathMs: Math.min(100, intervalMs),
        backoff: { baseMs: backoffMs, maxMs: maxBackoffMs },
        goOn: (run) => run.more && !run.failed,
      },
    );
    this.follower = new Follower<Account>(
      {
        name: 'embedding indexer',
        leases: INDEXER_LEASES,
        keysWithWork: async (limit) =>
          (await repo.accountsWithWork(db, this.model, limit)).map((a) => ({
            key: a.id,
            accountId: a.id,
            eventSeq: a.eventSeq,
          })),
        firstState: (account) => ({
          model: this.model,
          walk_seq: account.eventSeq,
          walk_phase: 'observations',
        }),
        visit: (lease) => this.indexAccount(lease),
        handle: (batch, lease) => this.handle(batch, lease),
        resync: async (lease) => {
          // Compacted past our position (embeddings were off longer than the retention): walk instead.
          const seq = await latestSeq(db, lease.key.accountId);
          await repo.restartWalk(db, lease.key.accountId, lease.holder, { model: this.model, seq });
          return false;
        },
      },
      {
        db,
        read: (accountId, seq, limit) => deps.changeLog.changesAfter({ accountId }, seq, limit),
      },
      {
        keysPerRun: ACCOUNTS_PER_RUN,
        pageSize: EVENTS_PAGE,
        leaseMs: this.options.leaseMs,
        // No share per account: the run's texts go to the accounts in turn.
        unitsPerRun: this.options.textsPerRun,
        minShare: this.options.textsPerRun,
      },
      () => this.schedule.closed,
    );
  }

  /** Runs `intervalMs` after start, then again after each run (at once while work is left). */
  start(): void {
    this.schedule.start();
  }

  /** The pause before the next scheduled run: longer after each failure in a row. */
  nextDelayMs(): number {
    return this.schedule.nextDelayMs();
  }

  /** One run now (or the one under way). */
  runOnce(): Promise<IndexerRun> {
    return this.schedule.runOnce();
  }

  /** Ends the schedule and cuts the request under way; resolves when the run has ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.schedule.close();
  }

  private get stopped(): boolean {
    return this.schedule.closed;
  }

  private get model(): string {
    return this.deps.embedder.model;
  }

  private async run(): Promise<IndexerRun> {
    const run: IndexerRun = (this.tally = { embedded: 0, removed: 0, accounts: 0, more: false });
    this.pages = WALK_PAGES_PER_RUN;
    const followed = await this.follower.run();
    run.accounts = followed.keys;
    run.more = followed.more;
    const error = followed.error;
    if (error !== undefined) {
      if (error instanceof EmbeddingError && !this.stopped) {
        this.schedule.failed();
        run.failed = error;
        this.errorShown = true;
        await repo.noteModelError(this.deps.db, this.model, error.message).catch(this.onError);
      }
      if (!this.stopped) this.onError(error);
    }
    return run;
  }

  /** Works on one account within the budget; true when it has nothing left for now. */
  private async indexAccount(lease: Lease<Account>): Promise<boolean> {
    const { db } = this.deps;
    const { accountId } = lease.key;
    let state = await repo.stateOf(db, accountId);
    if (!state) return true;
    try {
      if (state.model !== this.model) {
        // A new model: the old vectors go first (none is comparable with the new ones), then a walk.
        for (;;) {
          if (this.stopped) return false;
          const removed = await repo.removeOtherModels(db, accountId, this.model, REMOVE_BATCH);
          this.tally.removed += removed;
          if (removed < REMOVE_BATCH) break;
        }
        const seq = await latestSeq(db, accountId);
        await repo.restartWalk(db, accountId, lease.holder, { model: this.model, seq });
        state = {
          ...state,
          model: this.model,
          walk_seq: seq,
          walk_phase: 'observations',
          walk_space: null,
          walk_cursor: null,
        };
      }
      if (state.walk_seq !== null) return await this.walk(state, lease);
      return await this.follow(state, lease);
    } catch (error) {
      if (error instanceof StorageFull) return true;
      if (error instanceof Interrupted) return false;
      throw error;
    }
  }

  /** The log after the applied position (the follower's loop), within this run's pages. */
  private follow(state: repo.StateRow, lease: Lease<Account>): Promise<boolean> {
    this.states.set(lease.key.accountId, state);
    return lease.follow().finally(() => this.states.delete(lease.key.accountId));
  }

  /** The state of the accounts being followed (their last error is cleared with the first vectors). */
  private readonly states = new Map<string, repo.StateRow>();

  /**
   * The account's spaces in id order (deleted ones skipped), and in each,
   * pages of its observations (embedding those without a vector), then of
   * its vectors (removing orphans). Every step reads one bounded page,
   * however many spaces or rows the account has.
   */
  private async walk(state: repo.StateRow, lease: Lease<Account>): Promise<boolean> {
    const { db } = this.deps;
    const accountId = state.account_id;
    const holder = lease.holder;
    let phase = state.walk_phase ?? 'observations';
    // Null before the walk reaches its first space.
    let space = state.walk_space ?? (await repo.nextSpace(db, accountId, null)) ?? null;
    let cursor = state.walk_cursor;
    for (;;) {
      if (space === null) {
        // Past the last space: the walk is over.
        await repo.finishWalk(db, accountId, holder);
        // Then the events that came during the walk, from the seq it started at.
        const applied = Math.max(state.applied_seq, state.walk_seq ?? 0);
        lease.cursor = Math.max(lease.cursor, applied);
        return this.follow({ ...state, applied_seq: applied, walk_seq: null }, lease);
      }
      if (lease.over || this.pages <= 0) return false;
      this.pages -= 1;
      if (phase === 'observations') {
        const rows = await repo.walkObservations(db, space, cursor, WALK_PAGE);
        const pending = rows.flatMap((row) =>
          row.content === null ? [] : [{ id: row.id, content: row.content }],
        );
        await this.embedAndStore(state, space, pending, lease);
        cursor = rows.at(-1)?.id ?? cursor;
        if (rows.length < WALK_PAGE) {
          phase = 'vectors';
          cursor = null;
        }
      } else {
        const swept = await repo.sweepVectors(db, space, cursor, WALK_PAGE);
        this.tally.removed += swept.removed;
        cursor = swept.last;
        if (swept.scanned < WALK_PAGE) {
          // This space is done: on to the next one (null after the last).
          space = (await repo.nextSpace(db, accountId, space)) ?? null;
          phase = 'observations';
          cursor = null;
        }
      }
      // Past the last space: finished above, with nothing to resume.
      if (space === null) continue;
      const ours = await repo.saveWalk(db, accountId, holder, {
        phase,
        space,
        cursor,
        leaseMs: this.options.leaseMs,
      });
      if (!ours) return false;
    }
  }

  /**
   * A page of the change log: the entities its events name, each in the
   * event's space, have their vectors without an observation removed and
   * their observations without a vector embedded. The follower moves the
   * position past the page only once every entity of it is done: a stop
   * redoes this page, cheaply.
   */
  private async handle(batch: ChangeEvent[], lease: Lease<Account>) {
    const { db } = this.deps;
    const state = this.states.get(lease.key.accountId)!;
    if (this.pages <= 0) return { stopped: true };
    this.pages -= 1;
    for (const [space, entities] of entitiesBySpace(batch)) {
      const ids = [...entities];
      for (let start = 0; start < ids.length; start += ENTITIES_PER_STEP) {
        const step = ids.slice(start, start + ENTITIES_PER_STEP);
        this.tally.removed += await repo.removeOrphansOf(db, space, step);
        for (let stalled = 0; ;) {
          if (this.stopped || lease.units <= 0) return { stopped: true };
          const pending = await repo.missingOf(db, space, step, EMBED_BATCH * 4);
          if (pending.length === 0) break;
          const stored = await this.embedAndStore(state, space, pending, lease);
          if (pending.length < EMBED_BATCH * 4) break;
          // Texts stored for none of a full list (all deleted meanwhile) is possible once, not again and again.
          stalled = stored === 0 ? stalled + 1 : 0;
          if (stalled === 3) throw new Error('Embedding index: no progress on an account');
        }
      }
    }
    return {};
  }

  /** Embeds `items` (observations of `spaceId`) in batches and stores their vectors; returns how many were stored. */
  private async embedAndStore(
    state: repo.StateRow,
    spaceId: string,
    items: repo.Pending[],
    lease: Lease<Account>,
  ): Promise<number> {
    const { db } = this.deps;
    const accountId = state.account_id;
    let stored = 0;
    for (let start = 0; start < items.length; start += EMBED_BATCH) {
      // Thrown, not returned: a walk must not move past texts left unembedded.
      if (this.stopped) throw new Interrupted();
      const batch = items.slice(start, start + EMBED_BATCH);
      await this.assertRoom(accountId, batch.length);
      const vectors = await this.embedBatch(batch.map((item) => item.content));
      for (const length of new Set(vectors.flatMap((vector) => (vector ? [vector.length] : [])))) {
        await this.checkDimensions(length);
      }
      // The endpoint works (with vectors of the right length): no more backing off.
      await this.succeeded();
      const rows = batch.map((item, index) => {
        const vector = vectors[index];
        return { observationId: item.id, vector: vector ? toBase64(quantize(vector)) : '' };
      });
      const count = await repo.storeVectors(db, spaceId, this.model, rows);
      stored += count;
      this.tally.embedded += count;
      lease.units -= batch.length;
      if (state.last_error !== null) {
        await repo.clearAccountError(db, accountId);
        state.last_error = null;
      }
      if (!(await lease.renew())) throw new Interrupted();
    }
    return stored;
  }

  /**
   * One request's vectors; null for a text the endpoint refuses. A refused
   * batch may hold one text the model cannot take (too long, say) or mean the
   * endpoint itself is broken: a short probe tells which. If it works, the
   * texts go one at a time and only those refused alone are given up on.
   */
  private async embedBatch(texts: string[]): Promise<(number[] | null)[]> {
    const request = (inputs: string[]) =>
      this.deps.embedder.client.embed(inputs, {
        timeoutMs: this.options.requestTimeoutMs,
        signal: this.abort.signal,
      });
    try {
      return await request(texts);
    } catch (error) {
      if (!(error instanceof EmbeddingError) || !error.refusedInput) throw error;
      await request(['probe']);
      if (texts.length === 1) return [null];
      const vectors: (number[] | null)[] = [];
      for (const text of texts) {
        try {
          vectors.push((await request([text]))[0]!);
        } catch (single) {
          if (!(single instanceof EmbeddingError) || !single.refusedInput) throw single;
          vectors.push(null);
        }
      }
      return vectors;
    }
  }

  private async succeeded(): Promise<void> {
    this.schedule.succeeded();
    if (this.errorShown) {
      await repo.clearModelError(this.deps.db, this.model);
      this.errorShown = false;
    }
  }

  /** Refuses vectors of another length than the model's (the first vectors stored set it). */
  private async checkDimensions(length: number): Promise<void> {
    this.dimensions ??= await repo.modelDimensions(this.deps.db, this.model, length);
    if (length !== this.dimensions) {
      throw new EmbeddingError(
        'dimensions',
        `The embedding service answered ${length}-dimension vectors where the index holds ${this.dimensions}: the model changed under the same name (set another EMBEDDINGS_MODEL to rebuild the index)`,
      );
    }
  }

  /**
   * Refuses a batch the account's plan has no room for: vectors count
   * toward its storage, and they never take the last of it from the graph.
   */
  private async assertRoom(accountId: string, count: number): Promise<void> {
    const { db } = this.deps;
    const plan = await this.deps.entitlements.planOf(accountId);
    const limit = plan.features.maxStorageBytes;
    if (limit === UNLIMITED) return;
    const needed = count * (VECTOR_OVERHEAD_BYTES + (this.dimensions ?? ASSUMED_DIMENSIONS));
    if ((await repo.storedBytesOf(db, accountId)) + needed <= limit) return;
    await repo.noteAccountError(
      db,
      accountId,
      `Storage limit reached: the ${plan.name} plan allows ${formatBytes(limit)}, so the observations left wait for room`,
      this.options.storageRetryMs,
    );
    throw new StorageFull();
  }
}

/** The entities a page of events names, by the space each event was made in. */
function entitiesBySpace(events: ChangeEvent[]): Map<string, Set<string>> {
  const bySpace = new Map<string, Set<string>>();
  for (const event of events) {
    if (!('entityId' in event.payload)) continue;
    let entities = bySpace.get(event.spaceId);
    if (!entities) bySpace.set(event.spaceId, (entities = new Set()));
    entities.add(event.payload.entityId);
    // A merge's sources: the vectors of their observations dropped as repeats go.
    if ('mergedIds' in event.payload) for (const id of event.payload.mergedIds) entities.add(id);
  }
  return bySpace;
}
