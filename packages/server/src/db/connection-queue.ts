import { QUERY_CANCELED } from './deadline.js';

/**
 * What a connection is taken for: a write (a transaction — every graph write
 * is one — or a statement that changes rows) or a read.
 */
export type Use = 'write' | 'read';

interface Waiter {
  use: Use;
  wake: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Who gets the next of the pool's `size` connections (decisions 035, 037). A
 * write goes before the reads waiting: an account's graph writes run one at
 * a time under its lock (decision 030), and its requests wait on the usage
 * meter's reservation of their admissions, so every moment such a write
 * waits behind reads, a queue of requests waits with it, while reads run
 * side by side. A write never takes the last connection while a read waits,
 * so reads move however many writes queue. A wait longer than `maxWaitMs`
 * fails as a statement past the timeout does (503, nothing done).
 */
export class ConnectionQueue {
  private readonly held: Record<Use, number> = { write: 0, read: 0 };
  private readonly waiting: Record<Use, Waiter[]> = { write: [], read: [] };

  constructor(
    readonly size: number,
    private readonly maxWaitMs: number | undefined,
  ) {}

  async take(use: Use): Promise<void> {
    if (this.held.write + this.held.read < this.size) {
      this.held[use] += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { use, wake: resolve, timer: undefined };
      if (this.maxWaitMs !== undefined) {
        const limit = this.maxWaitMs;
        waiter.timer = setTimeout(() => {
          const queue = this.waiting[use];
          queue.splice(queue.indexOf(waiter), 1);
          reject(
            Object.assign(new Error(`waited over ${limit} ms for a database connection`), {
              code: QUERY_CANCELED,
            }),
          );
        }, limit);
      }
      this.waiting[use].push(waiter);
    });
  }

  /** Returns a connection taken for `use`: the next waiter, if any, takes it over. */
  give(use: Use): void {
    this.held[use] -= 1;
    const next = this.next();
    if (!next) return;
    clearTimeout(next.timer);
    this.held[next.use] += 1;
    next.wake();
  }

  private next(): Waiter | undefined {
    const { write, read } = this.waiting;
    const writeFirst = write.length > 0 && (read.length === 0 || this.held.write < this.size - 1);
    return (writeFirst ? write : read).shift();
  }
}
