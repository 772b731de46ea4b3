import WebSocket from 'ws';

export interface Received {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  timestamp: string;
  seq?: number;
  origin?: string;
}

/** A real WebSocket client that records what it receives and can wait for a message. */
export class TestSocket {
  readonly messages: Received[] = [];
  private waiters: { test: (m: Received) => boolean; resolve: (m: Received) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const parsed = JSON.parse(data.toString()) as Received;
      this.messages.push(parsed);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.test(parsed)) return true;
        waiter.resolve(parsed);
        return false;
      });
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async open(
    baseUrl: string,
    apiKey: string,
    options: WebSocket.ClientOptions = {},
    space?: string,
  ): Promise<TestSocket> {
    const url = new URL('/ws/connect', baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('api_key', apiKey);
    if (space !== undefined) url.searchParams.set('space', space);
    const socket = new TestSocket(new WebSocket(url, options));
    await new Promise<void>((resolve, reject) => {
      socket.ws.once('open', () => resolve());
      socket.ws.once('error', reject);
    });
    return socket;
  }

  send(type: string, payload: Record<string, unknown> = {}): void {
    this.ws.send(JSON.stringify({ id: `c-${Date.now()}`, type, payload, timestamp: Date.now() }));
  }

  /** The first message (already received or still to come) that passes `test`. */
  next(test: (m: Received) => boolean, timeoutMs = 5_000): Promise<Received> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no matching message; got ${JSON.stringify(this.messages.map((m) => m.type))}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /**
   * How the socket closed, or 'still open' when it has not closed within
   * `timeoutMs`: an attack test then fails with a readable difference
   * instead of a timeout.
   */
  closedWithin(timeoutMs = 5_000): Promise<{ code: number; reason: string } | 'still open'> {
    let timer: NodeJS.Timeout | undefined;
    const open = new Promise<'still open'>((resolve) => {
      timer = setTimeout(() => resolve('still open'), timeoutMs);
    });
    return Promise.race([this.closed, open]).finally(() => clearTimeout(timer));
  }

  ofType(type: string): Received[] {
    return this.messages.filter((m) => m.type === type);
  }

  close(): void {
    this.ws.close(1000);
  }
}
