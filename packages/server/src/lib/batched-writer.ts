/**
 * Bookkeeping noted in memory and written every interval, so a request never
 * waits on it (docs/architecture.md, rules). One write at a time: `stop`
 * clears the timer and writes what is left after any write under way, so no
 * write runs after the database has closed.
 */
export abstract class BatchedWriter {
  private timer: NodeJS.Timeout | undefined;
  /** The write (or other work taking turns with writes) under way. */
  private turn: Promise<unknown> = Promise.resolve();

  /** Writes what was noted since the last write (logging, never retrying, what fails). */
  protected abstract write(): Promise<void>;

  /** Writes everything noted so far, after any write under way. */
  flush(): Promise<void> {
    return this.inTurn(() => this.write());
  }

  /** Runs `fn` once the work under way has ended, and before any asked for later. */
  protected inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch(() => undefined);
    return run;
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
