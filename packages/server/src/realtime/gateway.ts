import { randomUUID } from 'node:crypto';
import websocket from '@fastify/websocket';
import {
  ACCOUNT_QUERY,
  entitiesOfChange,
  clientMessage,
  DEFAULT_SPACE_SLUG,
  PING_INTERVAL_MS,
  UNAUTHORIZED_CLOSE_CODE,
  type ClientMessage,
  type ServerMessage,
} from '@engram/shared';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { WebSocket } from 'ws';
import type { HistoryService } from '../features/history/index.js';
import type { KeysService } from '../features/keys/index.js';
import type { MembersService } from '../features/members/index.js';
import type { SpacesService } from '../features/spaces/index.js';
import type { UsageMeter } from '../features/usage/index.js';
import type { HttpContext } from '../http/context.js';
import type { AuthContext, SpaceRef } from '../lib/auth-context.js';
import type { ChangeEvent } from '../lib/change-event.js';
import type { CredentialWatch } from './credential-watch.js';
import type { EventBus } from './event-bus.js';
import { AppError } from '../lib/errors.js';
import { AccountFeeds, type FeedListener } from './account-feed.js';
import { eventFrame, textFrame } from './frames.js';
import { FlushScheduler, SocketWriter } from './socket-writer.js';

/** A client this far behind on reading is dropped rather than slowing the others. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/**
 * Missed events replayed on resume; past this, or when the log no longer holds
 * them (compacted), the client is told to reload instead.
 */
const MAX_REPLAY = 10_000;
const REPLAY_PAGE = 500;
const CLOSE_TOO_SLOW = 1013;
/** Close code for a client past a limit (too many connections or unprocessed messages). */
const CLOSE_POLICY = 1008;

/** What the gateway runs on: the change log, key checks, metering, the bus and the credential watch. */
interface RealtimeServices {
  history: Pick<HistoryService, 'changesAfter'>;
  keys: Pick<KeysService, 'authenticateApiKey'>;
  members: Pick<MembersService, 'actIn'>;
  spaces: Pick<SpacesService, 'resolveSpace'>;
  usage: UsageMeter;
  bus: EventBus;
  credentials: CredentialWatch;
}

export interface ConnectionLimits {
  maxEntitySubscriptions: number;
}

function message(type: string, payload: Record<string, unknown>): ServerMessage {
  return { id: randomUUID(), type, payload, timestamp: new Date().toISOString() };
}

/** The space a slug names for the connection's key, or the refusal to tell the client. */
type SpaceLookup = (slug: string) => Promise<SpaceRef | string>;

/**
 * One client's socket: the space it follows, what it subscribed to, and the
 * seq of the last event sent (or passed over: the seq is the account's, and
 * other spaces' events take their places in it), so a replay on resume and
 * the live stream never repeat or skip one.
 */
class RealtimeConnection implements FeedListener {
  private graphSubscribed = false;
  private readonly entityIds = new Set<string>();
  private lastSentSeq = 0;
  /** Live events held back while missed ones are replayed. */
  private held: ChangeEvent[] | undefined;
  private replayChain: Promise<void> = Promise.resolve();
  private pendingReplays = 0;
  private stopListening: (() => void) | undefined;
  private readonly writer: SocketWriter;
  alive = true;

  constructor(
    readonly socket: WebSocket,
    /** The upgraded request's TCP socket, which frames are written to. */
    rawSocket: unknown,
    private readonly auth: AuthContext,
    private space: SpaceRef,
    private readonly findSpace: SpaceLookup,
    private readonly history: RealtimeServices['history'],
    private readonly usage: UsageMeter,
    private readonly limits: ConnectionLimits,
    feeds: AccountFeeds,
    scheduler: FlushScheduler,
    private readonly log: FastifyBaseLogger,
  ) {
    this.writer = new SocketWriter(socket, rawSocket, scheduler, MAX_BUFFERED_BYTES, () => {
      this.socket.close(CLOSE_TOO_SLOW, 'Client too slow; reconnect and resume from your last seq');
      this.close();
    });
    this.stopListening = feeds.subscribe(auth.accountId, this);
    this.send(message('connection_established', { accountId: auth.accountId, space: space.slug }));
  }

  close(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.writer.discard();
  }

  async receive(raw: string): Promise<void> {
    let parsed: ClientMessage;
    try {
      const result = clientMessage.safeParse(JSON.parse(raw));
      if (!result.success) {
        const issue = result.error.issues[0];
        this.sendError(
          `Invalid message${issue ? ` (${issue.path.join('.') || 'type'}: ${issue.message})` : ''}`,
        );
        return;
      }
      parsed = result.data;
    } catch {
      this.sendError('Messages must be JSON');
      return;
    }
    switch (parsed.type) {
      case 'ping':
        this.send(message('pong', {}));
        return;
      case 'subscribe_to_entity': {
        const { entityId } = parsed.payload;
        const max = this.limits.maxEntitySubscriptions;
        if (!this.entityIds.has(entityId) && this.entityIds.size >= max) {
          this.sendError(
            `Too many entity subscriptions on this connection (max ${max}); unsubscribe from some first`,
          );
          return;
        }
        this.entityIds.add(entityId);
        this.send(message('subscribed', { channel: 'entity', entityId }));
        return;
      }
      case 'unsubscribe_from_entity':
        this.entityIds.delete(parsed.payload.entityId);
        this.send(
          message('unsubscribed', { channel: 'entity', entityId: parsed.payload.entityId }),
        );
        return;
      case 'subscribe_to_graph_changes': {
        const { space, lastSeq } = parsed.payload;
        if (space !== undefined && space !== this.space.slug) {
          const found = await this.findSpace(space);
          if (typeof found === 'string') {
            this.sendError(found);
            return;
          }
          this.space = found;
        }
        await this.subscribeToGraph(lastSeq);
        return;
      }
    }
  }

  private async subscribeToGraph(lastSeq: number | undefined): Promise<void> {
    if (lastSeq !== undefined) {
      // Reading the change log is a query like any other: metered, and refused past the plan.
      try {
        await this.usage.assertWithinPlan(this.auth.accountId);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        this.sendError(error.message);
        return;
      }
    }
    this.graphSubscribed = true;
    if (lastSeq !== undefined) {
      const started = performance.now();
      this.lastSentSeq = Math.max(this.lastSentSeq, lastSeq);
      await this.replayFromLog();
      const operation = { type: 'query', resource: 'graph' } as const;
      this.usage.record(this.auth.accountId, operation, performance.now() - started);
    }
    this.send(
      message('subscribed', {
        channel: 'graph',
        lastSeq: this.lastSentSeq,
        space: this.space.slug,
      }),
    );
  }

  /**
   * Sends every committed event after `lastSentSeq` from the change log,
   * holding live events meanwhile, then the held ones. Used on resume and
   * whenever a live event shows a gap (events of concurrent writers can be
   * published out of commit order): the log has them all, in order.
   */
  private async replayFromLog(): Promise<void> {
    this.held ??= [];
    // Replays run one after another; held events wait for the last of them.
    this.pendingReplays += 1;
    const run = this.replayChain.then(() => this.replayOnce());
    this.replayChain = run;
    await run;
    this.pendingReplays -= 1;
    if (this.pendingReplays === 0 && this.held) {
      const held = this.held.sort((a, b) => a.seq - b.seq);
      this.held = undefined;
      for (const event of held) this.deliver(event);
    }
  }

  private async replayOnce(): Promise<void> {
    try {
      for (let replayed = 0; ;) {
        const page = await this.history.changesAfter(this.auth, this.lastSentSeq, REPLAY_PAGE);
        if (page.resync) {
          // Compacted past this seq (older than the plan's retention window).
          this.send(message('resync_required', { lastSeq: this.lastSentSeq, reason: 'compacted' }));
          return;
        }
        for (const event of page.events) this.deliver(event);
        replayed += page.events.length;
        if (page.events.length === 0) return;
        if (replayed >= MAX_REPLAY) {
          this.send(message('resync_required', { lastSeq: this.lastSentSeq, reason: 'too_many' }));
          return;
        }
      }
    } catch (error) {
      this.log.error({ err: error }, 'realtime replay failed');
      this.sendError('Could not replay missed events; reload to resynchronise');
    }
  }

  /** The account's next event, from its feed (in seq order, each once). */
  event(event: ChangeEvent): void {
    if (this.held) {
      this.held.push(event);
    } else if (this.graphSubscribed && this.lastSentSeq > 0 && event.seq > this.lastSentSeq + 1) {
      // The feed is ordered, so this is rare: the feed started after this
      // socket's last seq, or skipped events it could not read. The log has them.
      this.held = [event];
      void this.replayFromLog();
    } else {
      this.deliver(event);
    }
  }

  /** The account's feed could not read missed events from the log. */
  skipped(): void {
    if (this.graphSubscribed)
      this.sendError('Could not replay missed events; reload to resynchronise');
  }

  private interested(event: ChangeEvent): boolean {
    if (this.graphSubscribed) return true;
    return entitiesOfChange(event).some((id) => this.entityIds.has(id));
  }

  private deliver(event: ChangeEvent): void {
    if (event.seq <= this.lastSentSeq) return;
    if (event.spaceId !== this.space.id) {
      // Another space's: passed over, its seq taken as seen (it is no gap).
      if (this.graphSubscribed) this.lastSentSeq = event.seq;
      return;
    }
    if (!this.interested(event)) return;
    this.lastSentSeq = event.seq;
    this.writer.write(eventFrame(event));
  }

  private sendError(text: string): void {
    this.send(message('error', { message: text }));
  }

  /** Queued behind the events before it: a reply never overtakes a replayed event. */
  private send(payload: ServerMessage): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.writer.write(textFrame(JSON.stringify(payload)));
  }
}

/** Open connections per key and per account on this node, to enforce their caps. */
class ConnectionCounts {
  private readonly counts = new Map<string, number>();

  get(id: string): number {
    return this.counts.get(id) ?? 0;
  }

  add(id: string, delta: number): void {
    const next = this.get(id) + delta;
    if (next > 0) this.counts.set(id, next);
    else this.counts.delete(id);
  }
}

/**
 * The realtime gateway at /ws/connect?api_key=…[&space=<slug>]: graph changes
 * of one space of the key's account (default unless named, here or in the
 * subscribe message), live, with resume from a seq. A bad key is refused with close code
 * 4401, and so is a key revoked or expired while connected; a dead client (no
 * pong within a ping interval) is terminated; connections per key and per
 * account, subscriptions and unprocessed messages per socket are capped.
 */
export const realtimeRoutes: FastifyPluginAsync<{
  services: RealtimeServices;
  http: HttpContext;
}> = async (app, { services, http }) => {
  // No compression: frames are encoded once per event and written to every socket as they are.
  await app.register(websocket, { options: { maxPayload: 64 * 1024, perMessageDeflate: false } });
  const connections = new Set<RealtimeConnection>();
  const scheduler = new FlushScheduler();
  const feeds = new AccountFeeds(
    services.bus,
    async (accountId, afterSeq, limit) =>
      (await services.history.changesAfter({ accountId }, afterSeq, limit)).events,
    (error) => app.log.error({ err: error }, 'realtime feed failed'),
  );
  app.addHook('onClose', async () => feeds.close());
  const perKey = new ConnectionCounts();
  const perAccount = new ConnectionCounts();
  const { config } = http;
  const limits: ConnectionLimits = { maxEntitySubscriptions: config.WS_MAX_ENTITY_SUBSCRIPTIONS };

  const heartbeat = setInterval(() => {
    for (const connection of connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }, PING_INTERVAL_MS);
  heartbeat.unref();
  app.addHook('onClose', async () => clearInterval(heartbeat));

  /** Why a new connection with this key may not open, if it may not. */
  function overCap(auth: AuthContext): string | undefined {
    if (perKey.get(auth.credential.id) >= config.WS_MAX_CONNECTIONS_PER_KEY) {
      return `Too many connections for this API key (max ${config.WS_MAX_CONNECTIONS_PER_KEY})`;
    }
    if (perAccount.get(auth.accountId) >= config.WS_MAX_CONNECTIONS_PER_ACCOUNT) {
      return `Too many connections for this account (max ${config.WS_MAX_CONNECTIONS_PER_ACCOUNT})`;
    }
    return undefined;
  }

  app.get(
    '/ws/connect',
    { websocket: true, onRequest: http.checkOrigin, schema: { hide: true } },
    (socket, request) => {
      // Listen at once: messages sent while the key is checked are queued, not lost.
      const early: string[] = [];
      let connection: RealtimeConnection | undefined;
      let release = () => {};
      let closed = false;
      let waiting = 0;
      let queue = Promise.resolve();
      const handle = (raw: string) => {
        queue = queue
          // Once the socket is closing (the client left, a cap, a revoked key), what it left
          // in the queue is dropped: no answer could reach it, and resumes would cost reads.
          .then(() => (socket.readyState === socket.OPEN ? connection?.receive(raw) : undefined))
          .catch((error: unknown) => {
            request.log.error({ err: error }, 'realtime message failed');
          })
          .finally(() => {
            waiting -= 1;
          });
      };
      socket.on('message', (data) => {
        waiting += 1;
        // A client that sends faster than it is served is cut off, not queued without bound.
        if (waiting > config.WS_MAX_QUEUED_MESSAGES) {
          socket.close(
            CLOSE_POLICY,
            `Too many unprocessed messages (max ${config.WS_MAX_QUEUED_MESSAGES}); wait for answers before sending more`,
          );
          return;
        }
        const raw = data.toString();
        if (connection) handle(raw);
        else early.push(raw);
      });
      socket.on('pong', () => {
        if (connection) connection.alive = true;
      });
      socket.on('close', () => {
        closed = true;
        release();
      });

      const query = request.query as Record<string, unknown>;
      const apiKey = typeof query.api_key === 'string' ? query.api_key : '';
      // A key acts in the account it was made in; `?account=` may name it, never another.
      const account =
        typeof query[ACCOUNT_QUERY] === 'string' && query[ACCOUNT_QUERY]
          ? query[ACCOUNT_QUERY]
          : undefined;
      void services.keys
        .authenticateApiKey(apiKey)
        .then((base) => base && services.members.actIn(base, account))
        .catch((error: unknown) =>
          error instanceof AppError && error.status < 500 ? error.message : undefined,
        )
        .then(async (auth) => {
          if (closed) return;
          if (typeof auth === 'string') {
            socket.close(CLOSE_POLICY, auth);
            return;
          }
          if (!auth) {
            socket.close(UNAUTHORIZED_CLOSE_CODE, 'Invalid or expired API key');
            return;
          }
          const refusal = overCap(auth);
          if (refusal) {
            socket.close(CLOSE_POLICY, refusal);
            return;
          }
          const findSpace: SpaceLookup = (slug) =>
            services.spaces.resolveSpace(auth, slug, 'read', {}).then(
              (found) => found.space,
              (error: unknown) => {
                if (error instanceof AppError && error.status < 500) return error.message;
                throw error;
              },
            );
          // The default space too is checked like any other: a key scoped to
          // other spaces is refused it, as on REST and MCP.
          const slug = typeof query.space === 'string' && query.space ? query.space : undefined;
          const space = await findSpace(slug ?? DEFAULT_SPACE_SLUG);
          if (closed) return;
          if (typeof space === 'string') {
            socket.close(CLOSE_POLICY, space);
            return;
          }
          const opened = new RealtimeConnection(
            socket,
            request.raw.socket,
            auth,
            space,
            findSpace,
            services.history,
            services.usage,
            limits,
            feeds,
            scheduler,
            request.log,
          );
          connection = opened;
          connections.add(opened);
          perKey.add(auth.credential.id, 1);
          perAccount.add(auth.accountId, 1);
          // The key ends (deleted, replaced, rolled past its grace, expired): so does the socket.
          const stopWatching = services.credentials.watch(auth, (reason) => {
            opened.close();
            socket.close(
              UNAUTHORIZED_CLOSE_CODE,
              reason === 'expired' ? 'API key expired' : 'API key revoked',
            );
          });
          release = () => {
            release = () => {};
            stopWatching();
            opened.close();
            connections.delete(opened);
            perKey.add(auth.credential.id, -1);
            perAccount.add(auth.accountId, -1);
          };
          for (const raw of early.splice(0)) handle(raw);
        });
    },
  );
};
