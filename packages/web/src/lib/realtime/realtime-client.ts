import {
  ACCOUNT_QUERY,
  MAX_RECONNECT_ATTEMPTS,
  NORMAL_CLOSE_CODE,
  PING_INTERVAL_MS,
  RECONNECT_INTERVAL_MS,
  REALTIME_PATH,
  SPACE_QUERY,
  UNAUTHORIZED_CLOSE_CODE,
  type ServerMessage,
} from '@engram/shared';
import { hasGraphEventType, parseServerMessage, readGraphEvent, type GraphEvent } from './messages';

/** What the client is doing (docs/product.md, States); the badge adds 'unknown' for "no client at all". */
export type RealtimeStatus = 'connecting' | 'connected' | 'disconnecting' | 'disconnected';

/**
 * Why the client stopped trying, when it did: the gateway refused the key
 * (close 4401), every reconnect attempt failed, or it was closed on purpose
 * (close 1000). Null while connected or still retrying.
 */
export type RealtimeStopReason = 'unauthorized' | 'gave-up' | 'closed' | null;

export interface RealtimeSnapshot {
  status: RealtimeStatus;
  /** False while there is no API key to connect with. */
  enabled: boolean;
  /** The reconnect attempt in progress or waiting (1…max); 0 when not reconnecting. */
  reconnectAttempt: number;
  maxReconnectAttempts: number;
  stopReason: RealtimeStopReason;
}

/** The part of the browser's WebSocket the client uses; tests pass a fake. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

/** Timer functions, injectable so tests can drive time. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export type RealtimeLogger = Pick<Console, 'warn' | 'error'>;

export interface RealtimeClientOptions {
  /** The socket address for a key and a memory space (null: the default one); see `realtimeUrl`. */
  url: (apiKey: string, space: string | null) => string;
  createSocket?: SocketFactory;
  timers?: Timers;
  logger?: RealtimeLogger;
  now?: () => Date;
  pingIntervalMs?: number;
  reconnectIntervalMs?: number;
  maxReconnectAttempts?: number;
}

type MessageHandler = (message: ServerMessage) => void;
type GraphEventHandler = (event: GraphEvent) => void;

/** A control message's text field (an account id, an error's words), or undefined. */
function textOf(payload: Record<string, unknown>, key: string): string | undefined {
  const value = payload[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** WebSocket.readyState values (the fake and the browser agree on these). */
const OPEN = 1;

/** Looked up at call time, so fake timers installed after construction still apply. */
const globalTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  setInterval: (callback, ms) => globalThis.setInterval(callback, ms),
  clearInterval: (handle) => globalThis.clearInterval(handle as ReturnType<typeof setInterval>),
};

/**
 * ws(s)://<this host>/ws/connect?api_key=…&space=…&account=… — same origin as
 * the app (docs/product.md, Calls); the feed carries the changes of that one
 * space, in the account named (none: the person's own; the key must be the
 * person's key there, as /auth/me read in that account gives it).
 */
export function realtimeUrl(
  apiKey: string,
  location: Pick<Location, 'protocol' | 'host'>,
  space: string | null = null,
  account: string | null = null,
): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const spacePart = space ? `&${SPACE_QUERY}=${encodeURIComponent(space)}` : '';
  const accountPart = account ? `&${ACCOUNT_QUERY}=${encodeURIComponent(account)}` : '';
  return `${scheme}://${location.host}${REALTIME_PATH}?api_key=${encodeURIComponent(apiKey)}${spacePart}${accountPart}`;
}

/**
 * The realtime connection (docs/product.md, States), without React:
 *
 * - `setApiKey(key)` connects; a different key replaces the connection; null closes it.
 * - Once the gateway confirms the key (`connection_established`) it subscribes to
 *   graph changes with the last `seq` seen, so a reconnect misses nothing, and
 *   re-subscribes to every entity subscribed through `subscribeToEntity`.
 * - While the socket is open it pings every 30 s.
 * - After an unclean close it reconnects every 5 s, at most 10 times in a row,
 *   then stays Disconnected until `reconnect()`. Close 1000 (normal) and 4401
 *   (the gateway refused the key) are final: no reconnect.
 * - Events whose `seq` is not newer than the last one seen are dropped (replay
 *   and live stream may overlap across a reconnect).
 * - `send` while not connected drops the message with a console warning.
 * - Unparseable frames are only logged; so are graph events whose payload is
 *   not the shared `graphChange` shape (they reach no graph-event handler).
 */
export class RealtimeClient {
  private readonly options: Required<Omit<RealtimeClientOptions, 'createSocket'>> & {
    createSocket: SocketFactory;
  };
  private apiKey: string | null = null;
  /** The memory space followed (null: the server's default). */
  private space: string | null = null;
  private socket: SocketLike | null = null;
  /** A socket closed on purpose, until its close event arrives (status Disconnecting). */
  private closingSocket: SocketLike | null = null;
  private established = false;
  /** Whether this client was ever subscribed; a later subscription without a seq must resync. */
  private everSubscribed = false;
  private reconnectAttempt = 0;
  private reconnectTimer: unknown = null;
  private pingTimer: unknown = null;
  private stopReason: RealtimeStopReason = null;
  private lastSeq: number | undefined;
  /** The account `lastSeq` belongs to; a key of another account starts over. */
  private accountId: string | undefined;
  private readonly entityRefs = new Map<string, number>();
  private readonly handlers = new Map<string, Set<MessageHandler>>();
  private readonly graphHandlers = new Set<GraphEventHandler>();
  private readonly resyncHandlers = new Set<() => void>();
  private readonly listeners = new Set<() => void>();
  private snapshot: RealtimeSnapshot;
  private messageCount = 0;
  private readonly idPrefix = Math.random().toString(36).slice(2, 8);

  constructor(options: RealtimeClientOptions) {
    this.options = {
      createSocket: (url) => new WebSocket(url),
      timers: globalTimers,
      logger: console,
      now: () => new Date(),
      pingIntervalMs: PING_INTERVAL_MS,
      reconnectIntervalMs: RECONNECT_INTERVAL_MS,
      maxReconnectAttempts: MAX_RECONNECT_ATTEMPTS,
      ...options,
    };
    this.snapshot = this.computeSnapshot();
  }

  // ---- state, for useSyncExternalStore -----------------------------------

  getSnapshot = (): RealtimeSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The highest event seq seen (undefined before the first event). */
  get lastEventSeq(): number | undefined {
    return this.lastSeq;
  }

  // ---- connection ---------------------------------------------------------

  /** Connects with `apiKey`, replaces the connection when it changes, closes on null. */
  setApiKey(apiKey: string | null): void {
    const key = apiKey === '' ? null : apiKey;
    if (key === this.apiKey) return;
    this.stop(key === null ? 'Signed out' : 'API key changed');
    this.apiKey = key;
    this.stopReason = key === null ? 'closed' : null;
    if (key !== null) this.open();
    this.publish();
  }

  /**
   * Follows another memory space: the connection is replaced, and the new
   * feed starts from now (nothing to resume: what happened there while
   * another space was shown is already in what its screens read).
   */
  setSpace(space: string | null): void {
    if (space === this.space) return;
    this.space = space;
    this.lastSeq = undefined;
    this.everSubscribed = false;
    if (this.apiKey === null) return;
    this.stop('Space changed');
    this.stopReason = null;
    this.open();
    this.publish();
  }

  /** Tries again now: after giving up, after a refused key, or while waiting to retry. */
  reconnect(): void {
    if (this.apiKey === null || this.socket !== null) return;
    this.clearReconnectTimer();
    this.reconnectAttempt = 0;
    this.stopReason = null;
    this.open();
    this.publish();
  }

  /** Closes normally (1000); the client stays idle until `setApiKey` or `reconnect`. */
  disconnect(): void {
    this.stop('Client closed');
    this.stopReason = 'closed';
    this.publish();
  }

  /** Closes and forgets every handler. */
  dispose(): void {
    this.setApiKey(null);
    this.handlers.clear();
    this.graphHandlers.clear();
    this.resyncHandlers.clear();
    this.listeners.clear();
  }

  // ---- messages -----------------------------------------------------------

  /**
   * Sends `{ id, type, payload, timestamp }`. While the socket is not open the
   * message is dropped with a warning (docs/product.md, States) and false is returned.
   */
  send(type: string, payload: Record<string, unknown> = {}): boolean {
    const socket = this.socket;
    if (socket === null || socket.readyState !== OPEN) {
      this.options.logger.warn(`Realtime: not connected, dropped "${type}" message`);
      return false;
    }
    this.messageCount += 1;
    socket.send(
      JSON.stringify({
        id: `${this.idPrefix}-${this.messageCount}`,
        type,
        payload,
        timestamp: this.options.now().toISOString(),
      }),
    );
    return true;
  }

  /** Handlers by message type ('*' for every message); returns the unsubscribe. */
  on(type: string, handler: MessageHandler): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * Every graph event (entity_created … relation_deleted), once each, in seq
   * order, read with the shared `graphChange` union.
   */
  onGraphEvent(handler: GraphEventHandler): () => void {
    this.graphHandlers.add(handler);
    return () => this.graphHandlers.delete(handler);
  }

  /**
   * Called when events may have been missed and cached data must be reloaded:
   * the gateway said `resync_required`, or a reconnect could not resume
   * because no event had been seen yet to resume from.
   */
  onResync(handler: () => void): () => void {
    this.resyncHandlers.add(handler);
    return () => this.resyncHandlers.delete(handler);
  }

  /**
   * Subscribes to one entity's changes (sent now when connected, and again on
   * every reconnect). Counted: the returned function unsubscribes when the last
   * subscriber of that entity leaves.
   */
  subscribeToEntity(entityId: string): () => void {
    const count = this.entityRefs.get(entityId) ?? 0;
    this.entityRefs.set(entityId, count + 1);
    if (count === 0 && this.established) this.send('subscribe_to_entity', { entityId });
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const left = (this.entityRefs.get(entityId) ?? 1) - 1;
      if (left > 0) {
        this.entityRefs.set(entityId, left);
        return;
      }
      this.entityRefs.delete(entityId);
      if (this.established) this.send('unsubscribe_from_entity', { entityId });
    };
  }

  // ---- internals ----------------------------------------------------------

  private open(): void {
    if (this.apiKey === null) return;
    const socket = this.options.createSocket(this.options.url(this.apiKey, this.space));
    this.socket = socket;
    this.established = false;
    socket.onopen = () => {
      if (socket !== this.socket) return;
      this.startPing();
    };
    socket.onmessage = (event) => {
      if (socket === this.socket) this.receive(event.data);
    };
    socket.onerror = () => {
      // A close event always follows; that is where reconnecting is decided.
    };
    socket.onclose = (event) => this.closed(socket, event.code);
  }

  /** Closes the current socket on purpose (1000) and cancels pending work. */
  private stop(reason: string): void {
    this.clearReconnectTimer();
    this.stopPing();
    this.reconnectAttempt = 0;
    this.established = false;
    const socket = this.socket;
    this.socket = null;
    if (socket === null) return;
    this.closingSocket = socket;
    try {
      socket.close(NORMAL_CLOSE_CODE, reason);
    } catch {
      this.closingSocket = null;
    }
  }

  private closed(socket: SocketLike, code: number): void {
    if (socket === this.closingSocket) {
      this.closingSocket = null;
      this.publish();
      return;
    }
    if (socket !== this.socket) return;
    this.socket = null;
    this.established = false;
    this.stopPing();
    if (code === NORMAL_CLOSE_CODE) {
      this.stopReason = 'closed';
    } else if (code === UNAUTHORIZED_CLOSE_CODE) {
      this.options.logger.warn('Realtime: the server refused the API key (close code 4401)');
      this.stopReason = 'unauthorized';
    } else if (this.reconnectAttempt < this.options.maxReconnectAttempts) {
      this.reconnectAttempt += 1;
      this.reconnectTimer = this.options.timers.setTimeout(() => {
        this.reconnectTimer = null;
        this.open();
        this.publish();
      }, this.options.reconnectIntervalMs);
    } else {
      this.reconnectAttempt = 0;
      this.stopReason = 'gave-up';
    }
    this.publish();
  }

  private receive(data: unknown): void {
    const message = parseServerMessage(data);
    if (message === null) {
      this.options.logger.error('Realtime: ignored an unparseable message', data);
      return;
    }
    if (message.seq !== undefined) {
      if (this.lastSeq !== undefined && message.seq <= this.lastSeq) return;
      this.lastSeq = message.seq;
    }
    switch (message.type) {
      case 'connection_established':
        this.establish(textOf(message.payload, 'accountId'));
        break;
      case 'subscribed': {
        const resumedTo = message.payload.lastSeq;
        if (message.payload.channel === 'graph' && typeof resumedTo === 'number') {
          this.lastSeq = Math.max(this.lastSeq ?? 0, resumedTo);
        }
        break;
      }
      case 'resync_required':
        this.resync();
        break;
      case 'error':
        this.options.logger.warn(
          'Realtime: server error:',
          textOf(message.payload, 'message') ?? message.payload,
        );
        break;
    }
    this.dispatch(message.type, message);
    this.dispatch('*', message);
    if (hasGraphEventType(message)) this.dispatchGraphEvent(message, data);
  }

  private dispatchGraphEvent(message: ServerMessage, data: unknown): void {
    const event = readGraphEvent(message);
    if (event === null) {
      this.options.logger.error('Realtime: ignored a malformed graph event', data);
      return;
    }
    for (const handler of [...this.graphHandlers]) this.safely(() => handler(event));
  }

  /** The gateway accepted the key: connected; (re)subscribe, resuming after lastSeq. */
  private establish(accountId: string | undefined): void {
    if (accountId !== undefined && accountId !== this.accountId) {
      // Another account's seq would make the gateway skip this account's events.
      if (this.accountId !== undefined) this.lastSeq = undefined;
      this.accountId = accountId;
    }
    this.established = true;
    this.reconnectAttempt = 0;
    this.stopReason = null;
    const resumeFrom = this.lastSeq;
    this.send(
      'subscribe_to_graph_changes',
      resumeFrom === undefined ? {} : { lastSeq: resumeFrom },
    );
    for (const entityId of this.entityRefs.keys()) {
      this.send('subscribe_to_entity', { entityId });
    }
    // Nothing to resume from: changes made while away cannot be replayed.
    if (this.everSubscribed && resumeFrom === undefined) this.resync();
    this.everSubscribed = true;
    this.publish();
  }

  private resync(): void {
    for (const handler of [...this.resyncHandlers]) this.safely(handler);
  }

  private dispatch(type: string, message: ServerMessage): void {
    const set = this.handlers.get(type);
    if (!set) return;
    for (const handler of [...set]) this.safely(() => handler(message));
  }

  /** One failing handler must not stop the others or the connection. */
  private safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.options.logger.error('Realtime: a message handler failed', error);
    }
  }

  private startPing(): void {
    this.stopPing();
    this.pingTimer = this.options.timers.setInterval(
      () => this.send('ping'),
      this.options.pingIntervalMs,
    );
  }

  private stopPing(): void {
    if (this.pingTimer === null) return;
    this.options.timers.clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private clearReconnectTimer(): void {
    if (this.reconnectTimer === null) return;
    this.options.timers.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private computeSnapshot(): RealtimeSnapshot {
    let status: RealtimeStatus = 'disconnected';
    if (this.socket !== null) status = this.established ? 'connected' : 'connecting';
    else if (this.closingSocket !== null) status = 'disconnecting';
    return {
      status,
      enabled: this.apiKey !== null,
      reconnectAttempt: this.reconnectAttempt,
      maxReconnectAttempts: this.options.maxReconnectAttempts,
      stopReason: this.stopReason,
    };
  }

  private publish(): void {
    const next = this.computeSnapshot();
    const previous = this.snapshot;
    if (
      next.status === previous.status &&
      next.enabled === previous.enabled &&
      next.reconnectAttempt === previous.reconnectAttempt &&
      next.stopReason === previous.stopReason
    ) {
      return;
    }
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }
}
