/**
 * An open-loop writer: write i is due at start + i / rate whether or not the
 * earlier ones have been answered (a slow server does not slow the offered
 * load), each a real POST /api/entities over keep-alive HTTP.
 */
import http from 'node:http';
import { clock } from './clock.js';

export class Writer {
  /** Epoch ms each write was due, sent, and answered (0: not answered). */
  readonly due: Float64Array;
  readonly sent: Float64Array;
  readonly answered: Float64Array;
  readonly status: Int16Array;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly url: URL;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    /** Entity names are `<prefix><i>`, which the subscribers read back. */
    private readonly prefix: string,
    readonly count: number,
  ) {
    this.url = new URL('/api/entities', baseUrl);
    this.due = new Float64Array(count);
    this.sent = new Float64Array(count);
    this.answered = new Float64Array(count);
    this.status = new Int16Array(count);
  }

  private fire(index: number, onDone: () => void): void {
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      onDone();
    };
    const body = JSON.stringify({ name: `${this.prefix}${index}`, type: 'bench' });
    this.sent[index] = clock();
    const request = http.request(
      this.url,
      {
        method: 'POST',
        agent: this.agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${this.apiKey}`,
        },
      },
      (response) => {
        this.answered[index] = clock();
        this.status[index] = response.statusCode ?? -1;
        response.resume();
        response.once('end', done);
      },
    );
    request.setTimeout(120_000, () => request.destroy(new Error('timeout')));
    request.once('error', () => {
      if (!this.answered[index]) this.status[index] = -1;
      done();
    });
    request.end(body);
  }

  /** Writes never sent because the server fell too far behind (see `run`). */
  notSent = 0;

  /**
   * Issues the writes at `rate` per second; resolves when every write sent is
   * answered or failed. Stops sending once the oldest unanswered write has
   * waited `maxLagMs` (the server cannot keep up; more would only queue).
   */
  run(rate: number, maxLagMs = Infinity): Promise<void> {
    return new Promise((resolve) => {
      if (this.count === 0) return resolve();
      const settled = new Uint8Array(this.count);
      let outstanding = 0;
      let oldest = 0;
      let next = 0;
      const finish = () => {
        if (outstanding === 0 && next >= this.count) resolve();
      };
      const start = clock() + 5;
      const tick = () => {
        const now = clock();
        while (oldest < next && settled[oldest]) oldest += 1;
        if (oldest < next && now - this.sent[oldest]! > maxLagMs) {
          this.notSent = this.count - next;
          next = this.count;
          finish();
          return;
        }
        while (next < this.count && start + (next * 1000) / rate <= now) {
          this.due[next] = start + (next * 1000) / rate;
          outstanding += 1;
          const index = next;
          this.fire(index, () => {
            settled[index] = 1;
            outstanding -= 1;
            finish();
          });
          next += 1;
        }
        if (next < this.count) {
          setTimeout(tick, Math.max(0, start + (next * 1000) / rate - clock()));
        }
      };
      setTimeout(tick, 5);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
