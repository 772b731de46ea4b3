import type { SocketLike } from '@/lib/realtime';

/**
 * A WebSocket stand-in for unit tests: records what the client sends and lets
 * the test play the server (accept, send messages, close with a code).
 */
export class FakeWebSocket implements SocketLike {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  /** Every socket created, oldest first. */
  static instances: FakeWebSocket[] = [];

  static reset(): void {
    FakeWebSocket.instances = [];
  }

  static get latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances.at(-1);
    if (!socket) throw new Error('No FakeWebSocket was created');
    return socket;
  }

  readyState = FakeWebSocket.CONNECTING;
  /** Parsed JSON of every frame the client sent. */
  readonly sent: {
    id: string;
    type: string;
    payload: Record<string, unknown>;
    timestamp: string;
  }[] = [];
  closedWith: { code?: number; reason?: string } | undefined;
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  send(data: string): void {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error('send() on a socket not open');
    this.sent.push(JSON.parse(data) as FakeWebSocket['sent'][number]);
  }

  /** The client closing: CLOSING now; the test finishes it with `serverClose`/`finishClose`. */
  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    if (this.readyState === FakeWebSocket.CLOSED) return;
    this.readyState = FakeWebSocket.CLOSING;
  }

  /** Types of the frames sent so far. */
  get sentTypes(): string[] {
    return this.sent.map((message) => message.type);
  }

  // ---- the test plays the server ------------------------------------------

  open(): void {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.(new Event('open'));
  }

  /** Opens and sends connection_established, as the gateway does for a good key. */
  accept(accountId = 'account-1'): void {
    this.open();
    this.receive({ type: 'connection_established', payload: { accountId } });
  }

  receive(message: Record<string, unknown> | string): void {
    const data =
      typeof message === 'string'
        ? message
        : JSON.stringify({
            id: `m-${Math.random().toString(36).slice(2)}`,
            payload: {},
            timestamp: new Date(0).toISOString(),
            ...message,
          });
    this.onmessage?.({ data } as MessageEvent);
  }

  /** Sends a graph event with its seq, shaped like the gateway's. */
  event(type: string, seq: number, payload: Record<string, unknown> = {}): void {
    this.receive({ id: `event-${seq}`, type, seq, payload: { ...payload, seq } });
  }

  /** The connection ends with `code` (1006 = dropped, as when the server goes away). */
  serverClose(code = 1006, reason = ''): void {
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.({ code, reason, wasClean: code === 1000 } as CloseEvent);
  }

  /** Completes a close the client started. */
  finishClose(): void {
    this.serverClose(this.closedWith?.code ?? 1005, this.closedWith?.reason ?? '');
  }
}
