import { QUERY_CANCELED } from '../../db/deadline.js';

/**
 * At most `width` graph writes of one account at a time in this process; the
 * rest wait here, holding nothing. Every write locks its account's row until
 * it commits (decision 030), so an account's writes run one at a time in the
 * database anyway; without the gate, each writer waiting on that lock held
 * one of the pool's connections, and one busy account took them all from
 * every other request. Two at a time keep the next writer already waiting in
 * the database, so passing the lock on costs no round trip. A write that
 * waits longer than `maxWaitMs` gives up as a statement past the timeout does
 * (503, nothing changed), as it would have waiting on the lock itself.
 */
export class AccountGate {
  private readonly queues = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(
    private readonly maxWaitMs: number,
    private readonly width = 2,
  ) {}

  async run<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(accountId);
    if (!queue) {
      queue = { running: 0, waiting: [] };
      this.queues.set(accountId, queue);
    }
    if (queue.running < this.width) {
      queue.running += 1;
    } else {
      await this.turn(queue.waiting);
    }
    try {
      return await fn();
    } finally {
      // The first write waiting takes this one's place; the last one out forgets the account.
      const next = queue.waiting.shift();
      if (next) {
        next();
      } else if (--queue.running === 0) {
        this.queues.delete(accountId);
      }
    }
  }

  private turn(waiting: (() => void)[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(wake), 1);
        reject(
          Object.assign(
            new Error(`waited over ${this.maxWaitMs} ms for the account's earlier writes`),
            { code: QUERY_CANCELED },
          ),
        );
      }, this.maxWaitMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      waiting.push(wake);
    });
  }
}
