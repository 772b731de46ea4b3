import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * When a background worker runs (docs/architecture.md, "follower/"): soon
 * after start, then every `pollMs`, after a breath while work is left, after
 * writes (`nudge`), and longer apart after failures in a row (`backoff`).
 * One run at a time. Between the steps of a run, `rest` steps aside while
 * requests come, so catching up (an import) leaves the database to them.
 */

/** What a run says of itself: at least whether work was left. */
export interface RunResult {
  more: boolean;
  error?: unknown;
}

export interface ScheduleOptions<R extends RunResult> {
  /** Pause between runs with nothing left to do. */
  pollMs: number;
  /** The first run after start (default `pollMs`). */
  firstRunMs?: number;
  /** The pause between runs while work is left (other statements get their turn on PGlite). */
  breathMs?: number;
  /** After failed runs in a row: the first pause, doubled each time up to `maxMs`. */
  backoff?: { baseMs: number; maxMs: number };
  /** A write's nudge waits for writes to pause this long… */
  nudgeAfterMs?: number;
  /** …but never longer than this after the first of a burst. */
  nudgeWithinMs?: number;
  /** Whether the next run follows at once (default: work left and no error). */
  goOn?: (run: R) => boolean;
  /** Whether `drain` is done (default: no work left). */
  drained?: (run: R) => boolean;
  /** Rests between steps: see `rest`. Without them a step never rests. */
  rests?: RestOptions;
}

export interface RestOptions {
  /** When the last request began (FeatureContext's `lastRequestAt`); without it, every step rests. */
  lastRequestAt?: (() => number) | undefined;
  /** After a step during which requests came, rest this many times as long as the step took. */
  restRatio: number;
  /** The longest rest between two steps. */
  maxRestMs?: number;
  /** A request that began this long before a step, or during it, makes the worker rest after it. */
  requestsNearMs?: number;
}

const DEFAULT_BREATH_MS = 50;
const DEFAULT_NUDGE_AFTER_MS = 1_000;
const DEFAULT_NUDGE_WITHIN_MS = 30_000;

export class Scheduler<R extends RunResult> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<R> | undefined;
  private scheduled = false;
  private nudged = false;
  private again = false;
  /** A `kick` came during a run: one more run follows it at once. */
  private queued = false;
  private firstNudgeAt = 0;
  /** When the last write this node published committed (steps rest while they come). */
  private lastWriteAt = -Infinity;
  private failures = 0;
  /** Readers waiting in `hurry`, or a `drain`: while there are any, steps do not rest. */
  private waiting = 0;
  /** Cuts a rest short: when closing, or when a reader waits (`hurry`). */
  private restCut = new AbortController();
  /** Stopped for good: runs end at their next step and no new one starts. */
  closed = false;

  constructor(
    private readonly run: (only?: string) => Promise<R>,
    private readonly nothing: R,
    private readonly options: ScheduleOptions<R>,
  ) {}

  /** Runs `firstRunMs` after start, then as the class comment says. */
  start(): void {
    if (this.closed || this.scheduled) return;
    this.scheduled = true;
    this.wake(this.options.firstRunMs ?? this.options.pollMs);
  }

  /** Ends the schedule (runs by hand, `drain`, still work); resolves when the run under way ends. */
  async stop(): Promise<void> {
    this.scheduled = false;
    this.nudged = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }

  /** Stops for good: the run under way ends at its next step. */
  async close(): Promise<void> {
    this.closed = true;
    this.restCut.abort();
    await this.stop();
  }

  /**
   * A write has committed: run once writes pause for `nudgeAfterMs`, so a
   * burst of writes (a bulk load) is not slowed by the worker beside it, but
   * never later than `nudgeWithinMs` after the first.
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
    const within = this.options.nudgeWithinMs ?? DEFAULT_NUDGE_WITHIN_MS;
    if (now - this.firstNudgeAt < within) this.wake(this.nudgeAfterMs);
  }

  /** A reader waits for the worker: run shortly, without postponing a run already due. */
  soon(): void {
    if (!this.scheduled || this.closed || this.running || this.nudged) return;
    this.nudged = true;
    this.firstNudgeAt = performance.now();
    this.wake(this.nudgeAfterMs);
  }

  /**
   * A reader waits for `only` (an account): the run under way ends without
   * its rests, then runs of that key alone, without resting, until nothing
   * is left or `ms` have passed. Callers keep this to small backlogs.
   */
  async hurry(only: string, ms: number): Promise<void> {
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
        const running = this.run(only);
        this.running = running.finally(() => (this.running = undefined));
        const run = await running;
        if (run.error || !run.more) return;
      }
    } finally {
      this.waiting--;
    }
  }

  /** One run now (or the one under way). */
  runOnce(): Promise<R> {
    if (this.closed) return Promise.resolve({ ...this.nothing });
    this.running ??= this.run().finally(() => {
      this.running = undefined;
      if (this.queued) {
        this.queued = false;
        void this.runOnce();
      }
    });
    return this.running;
  }

  /** Runs now, or once more right after the run under way (work asked for while a run reads its list). */
  kick(): void {
    if (this.closed) return;
    if (this.running) this.queued = true;
    else void this.runOnce();
  }

  /** Resolves once no run is under way or queued (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  /** Runs until nothing is left (tests, a clean stop); throws what a run failed with. Steps do not rest. */
  async drain(): Promise<void> {
    this.waiting++;
    try {
      for (let runs = 0; runs < 10_000; runs++) {
        const run = await this.runOnce();
        if (run.error) throw run.error;
        if ((this.options.drained ?? ((r: R) => !r.more))(run)) return;
      }
      throw new Error('follower: still busy after 10,000 runs');
    } finally {
      this.waiting--;
    }
  }

  /** A run failed (the worker's service is away): the next waits longer. */
  failed(): void {
    this.failures += 1;
  }

  /** The worker's service answered: no more backing off. */
  succeeded(): void {
    this.failures = 0;
  }

  /** The pause before the next scheduled run with nothing left: longer after each failure in a row. */
  nextDelayMs(): number {
    const { backoff, pollMs } = this.options;
    if (this.failures === 0 || !backoff) return pollMs;
    return Math.min(backoff.maxMs, backoff.baseMs * 2 ** (this.failures - 1));
  }

  /**
   * After a step that began at `started` (performance.now()): a rest in
   * proportion (`restRatio`) when requests came meanwhile, longer while
   * writes keep coming (up to `maxRestMs`), unless closing, draining or a
   * reader waits. With no request near, the next step follows at once.
   */
  async rest(started: number): Promise<void> {
    const rests = this.options.rests;
    if (!rests || this.waiting > 0) return;
    const ended = performance.now();
    const nudgeAfter = this.nudgeAfterMs;
    const writing = () => performance.now() - this.lastWriteAt < nudgeAfter;
    const lastRequestAt = rests.lastRequestAt?.() ?? Infinity;
    const near = rests.requestsNearMs ?? 250;
    let rest = lastRequestAt >= started - near ? (ended - started) * rests.restRatio : 0;
    const resting = () => !this.closed && this.waiting === 0;
    const left = () => (rests.maxRestMs ?? 2_000) - (performance.now() - ended);
    while ((rest > 0 || writing()) && resting() && left() > 0) {
      await sleep(Math.min(rest > 0 ? rest : nudgeAfter, left()), undefined, {
        signal: this.restCut.signal,
      }).catch(() => undefined);
      rest = 0;
    }
  }

  private get nudgeAfterMs(): number {
    return this.options.nudgeAfterMs ?? DEFAULT_NUDGE_AFTER_MS;
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
    const goOn = (this.options.goOn ?? ((r: R) => r.more && !r.error))(run) || this.again;
    this.again = false;
    this.wake(goOn ? (this.options.breathMs ?? DEFAULT_BREATH_MS) : this.nextDelayMs());
  }
}
