import { EngramError } from './errors.js';
import type { LiveEvent, LiveMessage } from './live-events.js';

export type { GraphEvent, GraphEventType, LiveEvent, ResyncRequired } from './live-events.js';

/** What `live()` needs of a WebSocket: the WHATWG API browsers, Deno, Node 22 and `ws` share. */
export interface WebSocketInstance {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type WebSocketLike = new (url: string) => WebSocketInstance;

export interface LiveOptions {
  /** The space to follow (its slug); the client's space when absent, else the default. */
  space?: string;
  /** Resume after this seq (the `seq` of the last event you handled); from now when absent. */
  lastSeq?: number;
  /** Ends the feed (like `close()` or leaving the `for await`). */
  signal?: AbortSignal;
  /** Failed reconnections in a row before the feed ends with an EngramError. Default 10. */
  maxReconnectAttempts?: number;
  /** The first wait before reconnecting, doubled each failure up to 30 s. Default 500 ms. */
  reconnectDelayMs?: number;
  /** How often a ping is sent; no message for two of these and the socket is replaced. Default 30 s. */
  pingIntervalMs?: number;
}

const OPEN = 1;
const NORMAL_CLOSE = 1000;
/** The gateway's close code for a missing, unknown, expired or revoked key. */
const UNAUTHORIZED_CLOSE = 4401;
/** The gateway's close code for a refusal: a cap, a space the key may not read. */
const POLICY_CLOSE = 1008;
/** Ours: a socket replaced on purpose (silent, or to start over after resync_required). */
const REPLACED_CLOSE = 4000;
const MAX_RECONNECT_DELAY_MS = 30_000;

async function webSocketClass(given: WebSocketLike | undefined): Promise<WebSocketLike> {
  if (given) return given;
  const global = (globalThis as { WebSocket?: WebSocketLike }).WebSocket;
  if (global) return global;
  // Node 20 has no WebSocket: the optional peer `ws`, named so bundlers leave it alone.
  const name = 'ws';
  try {
    const module = (await import(/* @vite-ignore */ name)) as { default?: WebSocketLike };
    if (module.default) return module.default;
  } catch {
    // Not installed: said below.
  }
  throw new TypeError(
    'Engram live(): no WebSocket here. Install `ws` or pass `WebSocket` to new Engram({ … }).',
  );
}

function refusal(code: number, reason: string): EngramError {
  if (code === UNAUTHORIZED_CLOSE) {
    return new EngramError(reason || 'Invalid or expired API key', {
      status: 401,
      code: 'UNAUTHORIZED',
    });
  }
  const [status, errorCode] = /too many/i.test(reason)
    ? [429, 'RATE_LIMITED']
    : /not found/i.test(reason)
      ? [404, 'NOT_FOUND']
      : [403, 'FORBIDDEN'];
  return new EngramError(reason || 'The realtime feed refused the connection', {
    status,
    code: errorCode,
  });
}

const decoder = new TextDecoder();

/** A message's text: a string from every WebSocket API for text frames, bytes from some. */
function textOf(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    return decoder.decode(data as ArrayBuffer | ArrayBufferView);
  }
  return String(data);
}

interface Connection {
  url: string;
  apiKey: string;
  space?: string;
  account?: string;
  WebSocket?: WebSocketLike;
}

/**
 * The realtime feed as an async iterator (see `Engram.live`). One consumer;
 * events wait in memory until it reads them.
 */
export function live(
  connection: Connection,
  options: LiveOptions = {},
): AsyncIterable<LiveEvent> & { close(): void } {
  const queue: LiveEvent[] = [];
  let wake: (() => void) | undefined;
  /** Why the feed ended: an EngramError, or a TypeError when there is no WebSocket to use. */
  let failure: Error | undefined;
  let finished = false;
  let socket: WebSocketInstance | undefined;
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The seq of the last event handed on (or the one resumed from). */
  let position = options.lastSeq;
  let failures = 0;
  let started = false;
  /** Set after resync_required: the next connection starts from now, and says nothing more. */
  let startOver = false;
  let everSubscribed = false;
  /** When the socket last said anything: a silent one is replaced. */
  let lastHeard = Date.now();
  const maxAttempts = options.maxReconnectAttempts ?? 10;
  const baseDelay = options.reconnectDelayMs ?? 500;
  const pingInterval = options.pingIntervalMs ?? 30_000;

  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const push = (event: LiveEvent) => {
    queue.push(event);
    notify();
  };
  const stopTimers = () => {
    if (pingTimer !== undefined) clearInterval(pingTimer);
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    pingTimer = retryTimer = undefined;
  };
  const finish = (error?: Error) => {
    if (finished) return;
    finished = true;
    failure = error;
    stopTimers();
    const open = socket;
    socket = undefined;
    if (open) {
      open.onclose = open.onmessage = open.onerror = null;
      try {
        open.close(NORMAL_CLOSE, 'Client closed');
      } catch {
        // Already closing.
      }
    }
    notify();
  };

  const endpoint = () => {
    // Beside the REST API, under the same path when Engram is served below one.
    const url = new URL(`${connection.url.replace(/\/+$/, '').replace(/^http/, 'ws')}/ws/connect`);
    url.searchParams.set('api_key', connection.apiKey);
    const space = options.space ?? connection.space;
    if (space) url.searchParams.set('space', space);
    if (connection.account) url.searchParams.set('account', connection.account);
    return url.toString();
  };

  const reconnectLater = () => {
    failures += 1;
    if (failures > maxAttempts) {
      finish(
        new EngramError(`Realtime feed lost after ${maxAttempts} reconnection attempts`, {
          status: 0,
          code: 'NETWORK_ERROR',
        }),
      );
      return;
    }
    const ceiling = Math.min(MAX_RECONNECT_DELAY_MS, baseDelay * 2 ** (failures - 1));
    retryTimer = setTimeout(() => void open(), ceiling / 2 + (Math.random() * ceiling) / 2);
  };

  const receive = (current: WebSocketInstance, data: unknown) => {
    let message: LiveMessage;
    try {
      message = JSON.parse(textOf(data)) as LiveMessage;
    } catch {
      return;
    }
    lastHeard = Date.now();
    if (typeof message.seq === 'number') {
      if (position !== undefined && message.seq <= position) return;
      position = message.seq;
      push(message as unknown as LiveEvent);
      return;
    }
    switch (message.type) {
      case 'connection_established': {
        const resume = startOver ? undefined : position;
        if (everSubscribed && resume === undefined && !startOver) {
          // Nothing seen to resume from: what happened while away cannot be replayed.
          push({ type: 'resync_required', lastSeq: 0, reason: 'no_position' });
        }
        startOver = false;
        current.send(
          JSON.stringify({
            type: 'subscribe_to_graph_changes',
            payload: resume === undefined ? {} : { lastSeq: resume },
          }),
        );
        return;
      }
      case 'subscribed':
        if (message.payload.channel !== 'graph') return;
        failures = 0;
        everSubscribed = true;
        return;
      case 'resync_required': {
        const lastSeq = Number(message.payload.lastSeq ?? position ?? 0);
        const reason = String(message.payload.reason ?? 'compacted');
        push({ type: 'resync_required', lastSeq, reason });
        // The gateway stays behind that seq: start over on a new socket, from now.
        position = undefined;
        startOver = true;
        replace(current);
        return;
      }
      case 'error':
        if (!everSubscribed) {
          const text = String(
            message.payload.message ?? 'The realtime feed refused the subscription',
          );
          finish(new EngramError(text, { status: 0, code: 'REALTIME_ERROR' }));
        }
        return;
    }
  };

  const replace = (current: WebSocketInstance) => {
    if (socket !== current) return;
    current.onclose = current.onmessage = current.onerror = null;
    socket = undefined;
    stopTimers();
    try {
      current.close(REPLACED_CLOSE, 'Reconnecting');
    } catch {
      // Already closing.
    }
    void open();
  };

  const open = async () => {
    retryTimer = undefined;
    if (finished) return;
    let WebSocketClass: WebSocketLike;
    try {
      WebSocketClass = await webSocketClass(connection.WebSocket);
    } catch (error) {
      finish(error as Error);
      return;
    }
    if (finished) return;
    const current = new WebSocketClass(endpoint());
    socket = current;
    lastHeard = Date.now();
    current.onmessage = (event) => receive(current, event.data);
    current.onerror = () => {
      // A close event follows: reconnecting is decided there.
    };
    current.onclose = (event) => {
      if (socket !== current) return;
      socket = undefined;
      stopTimers();
      if (event.code === UNAUTHORIZED_CLOSE || event.code === POLICY_CLOSE) {
        finish(refusal(event.code, event.reason));
      } else {
        reconnectLater();
      }
    };
    pingTimer = setInterval(() => {
      if (socket !== current) return;
      if (Date.now() - lastHeard > 2 * pingInterval) {
        replace(current);
        return;
      }
      if (current.readyState === OPEN) current.send(JSON.stringify({ type: 'ping' }));
    }, pingInterval);
  };

  options.signal?.addEventListener('abort', () => finish(), { once: true });

  const iterator: AsyncIterator<LiveEvent> = {
    async next() {
      if (!started) {
        started = true;
        if (options.signal?.aborted) finish();
        else void open();
      }
      for (;;) {
        const event = queue.shift();
        if (event) return { value: event, done: false };
        if (finished) {
          if (failure) {
            const error = failure;
            failure = undefined;
            throw error;
          }
          return { value: undefined, done: true };
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async return() {
      finish();
      return { value: undefined, done: true };
    },
  };
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => finish(),
  };
}
