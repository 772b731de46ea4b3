import { QUERY_CANCELED } from './deadline.js';

/** What a connection is taken for: a transaction (every write) or a plain statement (reads). */
export type Use = 'transaction' | 'statement';

interface Waiter {
  use: Use;
  wake: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Who gets the next of the pool's `size` connections (decision 035). A
 * transaction goes before the plain statements waiting: an account's writes
 * run one at a time under its lock (decision 030), so every moment a write
 * waits behind reads, all of that account's writes wait, while reads run side
 * by side. It never takes the last connection while a statement waits, so
 * reads move however many writes queue. A wait longer than `maxWaitMs` fails
 * as a statement past the timeout does (503, nothing done).
 */
export class ConnectionQueue {
  private readonly held: Record<Use, number> = { transaction: 0, statement: 0 };
  private readonly waiting: Record<Use, Waiter[]> = { transaction: [], statement: [] };

  constructor(
    readonly size: number,
    private readonly maxWaitMs: number | undefined,
  ) {}

  async take(use: Use): Promise<void> {
    if (this.held.transaction + this.held.statement < this.size) {
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
    const { transaction, statement } = this.waiting;
    const transactionFirst =
      transaction.length > 0 && (statement.length === 0 || this.held.transaction < this.size - 1);
    return (transactionFirst ? transaction : statement).shift();
  }
}
