import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from '../http/context.js';
import type { SpaceAuth, SpaceRef } from '../lib/auth-context.js';
import { AccountEventBus } from './account-event-bus.js';
import { engramAuthOf } from './auth.js';
import { noRoom, type McpServices } from './http-common.js';
import { createMemoryServer, memoryServicesOf, requireRead } from './memory-server.js';

/** One space's 2026-era handler: its listens hear that space's changes only. */
interface AccountLane {
  handler: McpHttpHandler;
  node: NodeMcpRequestHandler;
  bus: AccountEventBus;
  /** Requests (listens included) being served now. */
  inFlight: number;
  /** Runtime clock (ms) of the last request. */
  lastSeen: number;
}

export interface StatelessLaneOptions {
  services: McpServices;
  http: HttpContext;
  /** Runtime clock (ms). */
  clock: () => number;
  log: FastifyBaseLogger;
  /** 2025-era sessions open on this node: they share its room with the listens. */
  sessions: () => number;
}

/** The 2026-07-28 revision's requests on this node. */
export interface StatelessLane {
  /** `subscriptions/listen` streams open on this node. */
  readonly listens: number;
  /** A POST of the 2026-07-28 revision, to its space's handler. */
  post(request: FastifyRequest, reply: FastifyReply, auth: SpaceAuth): Promise<unknown>;
  /** Closes the handlers idle since before `cutoff` (runtime clock, ms) with nothing open. */
  sweep(cutoff: number): void;
  /** Closes every handler (the server is closing). */
  close(): Promise<void>;
}

function isListenRequest(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { method?: unknown }).method === 'subscriptions/listen'
  );
}

/**
 * The 2026-07-28 revision (stateless): any node answers any request. One
 * `createMcpHandler` per account and space whose `ServerEventBus` is that
 * space's slice of Engram's event bus (Redis across nodes), so a
 * `subscriptions/listen` stream hears every change to its own space's graph,
 * written on any node, and nothing of other accounts'.
 */
export function statelessLane({
  services,
  http,
  clock,
  log,
  sessions,
}: StatelessLaneOptions): StatelessLane {
  const lanes = new Map<string, AccountLane>();
  /** 2026-era listen streams open on this node (they count against MCP_MAX_SESSIONS). */
  let listens = 0;

  function laneOf(accountId: string, space: SpaceRef): AccountLane {
    const key = `${accountId}/${space.id}`;
    let lane = lanes.get(key);
    if (!lane) {
      const bus = new AccountEventBus(services.bus, accountId, space.id);
      const handler = createMcpHandler(
        (ctx) =>
          createMemoryServer({
            ...memoryServicesOf(services),
            auth: { ...engramAuthOf(ctx.authInfo), space },
            log,
            updates: 'none',
            webDistDir: http.config.WEB_DIST_DIR,
          }),
        {
          legacy: 'reject',
          bus,
          maxSubscriptions: http.config.MCP_MAX_SESSIONS_PER_ACCOUNT,
          onerror: (error) => log.debug({ err: error }, 'MCP request refused'),
        },
      );
      lane = { handler, node: toNodeHandler(handler), bus, inFlight: 0, lastSeen: clock() };
      lanes.set(key, lane);
    }
    lane.lastSeen = clock();
    return lane;
  }

  async function modernPost(request: FastifyRequest, reply: FastifyReply, auth: SpaceAuth) {
    const lane = laneOf(auth.accountId, auth.space);
    const raw = reply.raw;
    if (isListenRequest(request.body)) {
      // Following changes reads the graph: a credential that may not read it may not listen.
      requireRead(auth);
      // A listen is held open like a session: it counts against the node's room,
      // and ends the moment its credential is revoked or expires.
      if (sessions() + listens >= http.config.MCP_MAX_SESSIONS) return noRoom(reply);
      listens++;
      const stopWatching = services.credentials.watch(auth, () => raw.destroy());
      raw.once('close', () => {
        listens--;
        stopWatching();
      });
    }
    lane.inFlight++;
    raw.once('close', () => {
      lane.inFlight--;
      lane.lastSeen = clock();
    });
    reply.hijack();
    await lane.node(request.raw, raw, request.body);
  }

  return {
    get listens() {
      return listens;
    },
    post: modernPost,
    sweep(cutoff) {
      // A lane holds nothing between requests but its open listens: drop idle empty ones.
      for (const [key, lane] of lanes) {
        if (lane.inFlight === 0 && lane.bus.listenerCount === 0 && lane.lastSeen < cutoff) {
          lanes.delete(key);
          void lane.handler.close().catch(() => undefined);
        }
      }
    },
    async close() {
      const closing = [...lanes.values()].map((lane) => lane.handler.close());
      lanes.clear();
      await Promise.allSettled(closing);
    },
  };
}
