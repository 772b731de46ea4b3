import { randomUUID } from 'node:crypto';
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  type NodeMcpRequestHandler,
} from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  type McpHttpHandler,
  type McpServer,
} from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authOf } from '../http/authenticate.js';
import { asksToCreate } from '../http/space-scope.js';
import type { AuthContext, SpaceAuth, SpaceRef } from '../lib/auth-context.js';
import { AppError } from '../lib/errors.js';
import type { SpacesService } from '../features/spaces/index.js';
import type { Entitlements } from '../features/entitlements/index.js';
import { UNLIMITED } from '@engram/shared';
import {
  MCP_PATH,
  mcpResourceUrl,
  oauthIssuer,
  protectedResourceMetadata,
} from '../lib/protected-resource.js';
import type { HttpContext } from '../http/context.js';
import type { CredentialWatch } from '../realtime/credential-watch.js';
import { engramAuthOf, mcpAuthenticateWith, PROTECTED_RESOURCE_METADATA_PATH } from './auth.js';
import { AccountEventBus } from './account-event-bus.js';
import { createMemoryServer, requireRead, type MemoryServerDeps } from './memory-server.js';

interface Session {
  id: string;
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  accountId: string;
  /** The URL's space slug it was opened on (undefined: /mcp): used at any other, it is unknown. */
  path: string | undefined;
  /** The session token or API key that opened it: the only one that may use it. */
  credentialId: string;
  /** Runtime clock (ms) of the last request. */
  lastSeen: number;
  /** Order of last use across sessions (the clock may not move between requests). */
  lastUse: number;
  stopWatching: () => void;
}

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

/** What /mcp runs on: the memory server's services, and the watch that ends what a revoked credential opened. */
type McpServices = Pick<
  MemoryServerDeps,
  'graph' | 'reads' | 'history' | 'duplicates' | 'recall' | 'usage' | 'bus'
> & {
  credentials: CredentialWatch;
  spaces: Pick<SpacesService, 'resolveSpace'>;
  entitlements: Pick<Entitlements, 'planOf'>;
};

/** The slug in the path (`/mcp/<slug>`), undefined for `/mcp` (the default space). */
function pathSpaceOf(request: FastifyRequest): string | undefined {
  return (request.params as { space?: string } | undefined)?.space;
}

/** How often idle sessions and account lanes are looked for (also at every new session). */
const SWEEP_MS = 15_000;
/** A tool call may carry a whole batch (up to 100,000 items, memory-server.ts). */
const MCP_BODY_LIMIT = 32 * 1024 * 1024;
/** Seconds a client is told to wait when the node has no room for a session. */
const RETRY_AFTER_SECONDS = 30;
/** A session idle this long may be closed to make room for its account's new one. */
const IDLE_FOR_ROOM_MS = 60_000;
/** Sessions closed to make room, remembered so their next request is told why (the newest this many). */
const CLOSED_REMEMBERED = 10_000;

function jsonRpcError(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

function isListenRequest(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { method?: unknown }).method === 'subscriptions/listen'
  );
}

/** A header as the Fetch API reads it: repeated values joined by ", ". */
function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Whether the SDK would serve this POST as 2025-era traffic: its own
 * classifier (what `isLegacyRequest` runs), fed the body Fastify has parsed
 * and the headers as they are, without building a Fetch `Request` for it.
 */
function isLegacyPost(request: FastifyRequest): boolean {
  // An empty body has no era claim; the 2025 lane answers it.
  if (request.body === undefined) return true;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerOf(request, 'mcp-protocol-version'),
    mcpMethodHeader: headerOf(request, 'mcp-method'),
    mcpNameHeader: headerOf(request, 'mcp-name'),
    body: request.body,
  });
  return outcome.kind === 'legacy';
}

/**
 * The MCP Streamable HTTP endpoint, serving both protocol eras:
 *
 * - **2026-07-28** (stateless): any node answers any request. One
 *   `createMcpHandler` per account whose `ServerEventBus` is that account's
 *   slice of Engram's event bus (Redis across nodes), so a
 *   `subscriptions/listen` stream hears every change to its own account's
 *   graph, written on any node, and nothing of other accounts'.
 * - **2025 era** (initialize + `Mcp-Session-Id`, picked with the SDK's
 *   `isLegacyRequest`): sessions in this node's memory (sticky routing). A
 *   session belongs to the credential that opened it, is invisible to any
 *   other, and ends when that credential is revoked or expires, when it idles
 *   past MCP_SESSION_IDLE_MINUTES, or — idle for a minute or more — when its
 *   account, at its cap (`sessionCap`), opens another.
 *
 * Every request is authenticated (API key or session token); a refusal
 * points at the Protected Resource Metadata (RFC 9728).
 */
export const mcpRoutes: FastifyPluginAsync<{
  services: McpServices;
  http: HttpContext;
}> = async (app, { services, http }) => {
  const sessions = new Map<string, Session>();
  /** Sessions closed to make room for another: their id → the credential that held them. */
  const closedForRoom = new Map<string, string>();
  const lanes = new Map<string, AccountLane>();
  let uses = 0;
  /** 2026-era listen streams open on this node (they count against MCP_MAX_SESSIONS). */
  let listens = 0;
  const idleMs = http.config.MCP_SESSION_IDLE_MINUTES * 60_000;
  const clock = () => http.now().getTime();

  // ── 2025 era: sessions ────────────────────────────────────────────────────

  /** Forgets the session; the transport is closed by whoever is closing it. */
  function forget(session: Session): boolean {
    if (!sessions.delete(session.id)) return false;
    session.stopWatching();
    return true;
  }

  /** Ends a session from our side: its transport closes, any open GET stream ends. */
  function end(session: Session): void {
    if (forget(session)) void session.server.close().catch(() => undefined);
  }

  function sweepIdle(): void {
    const cutoff = clock() - idleMs;
    for (const session of sessions.values()) if (session.lastSeen < cutoff) end(session);
    // A lane holds nothing between requests but its open listens: drop idle empty ones.
    for (const [accountId, lane] of lanes) {
      if (lane.inFlight === 0 && lane.bus.listenerCount === 0 && lane.lastSeen < cutoff) {
        lanes.delete(accountId);
        void lane.handler.close().catch(() => undefined);
      }
    }
  }

  const sweep = setInterval(sweepIdle, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    for (const session of [...sessions.values()]) end(session);
    const closing = [...lanes.values()].map((lane) => lane.handler.close());
    lanes.clear();
    await Promise.allSettled(closing);
  });

  function sessionOf(request: FastifyRequest): Session | undefined {
    const id = request.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    // Another credential's session id — of this account or another — is as unknown as a made-up one.
    if (!session || session.credentialId !== authOf(request).credential.id) return undefined;
    // A session belongs to the space's URL it was opened on.
    if (session.path !== pathSpaceOf(request)) return undefined;
    session.lastSeen = clock();
    session.lastUse = ++uses;
    return session;
  }

  /**
   * How many sessions the account may hold on this node: the operator's
   * MCP_MAX_SESSIONS_PER_ACCOUNT, or twice the plan's API keys when that is
   * more (a plan sold with 50 keys runs 100 agents at once).
   */
  async function sessionCap(accountId: string): Promise<number> {
    const plan = await services.entitlements.planOf(accountId);
    const keys = plan.features.maxApiKeys;
    const byPlan = keys === UNLIMITED ? Number.POSITIVE_INFINITY : keys * 2;
    return Math.max(http.config.MCP_MAX_SESSIONS_PER_ACCOUNT, byPlan);
  }

  /**
   * Makes room for one more session of the account. At its cap, sessions idle
   * for a minute or more are closed for the new one (the longest idle first);
   * a live agent's session is never closed: the new one is refused with the
   * seconds until one could be. False for the node when it is full.
   */
  async function makeRoom(
    auth: AuthContext,
  ): Promise<{ retryAfter: number; cap: number } | boolean> {
    sweepIdle();
    const cap = await sessionCap(auth.accountId);
    const own = [...sessions.values()].filter((s) => s.accountId === auth.accountId);
    if (own.length >= cap) {
      own.sort((a, b) => a.lastSeen - b.lastSeen);
      const needed = own.slice(0, own.length - cap + 1);
      const cutoff = clock() - IDLE_FOR_ROOM_MS;
      const last = needed.at(-1)!;
      if (last.lastSeen > cutoff) {
        return { cap, retryAfter: Math.max(1, Math.ceil((last.lastSeen - cutoff) / 1000)) };
      }
      for (const session of needed) {
        closedForRoom.set(session.id, session.credentialId);
        end(session);
      }
      for (const id of closedForRoom.keys()) {
        if (closedForRoom.size <= CLOSED_REMEMBERED) break;
        closedForRoom.delete(id);
      }
    }
    return sessions.size + listens < http.config.MCP_MAX_SESSIONS;
  }

  /** 404 for a session this credential does not hold, saying to reconnect (and why, when we closed it). */
  function unknownSession(request: FastifyRequest, reply: FastifyReply) {
    const id = request.headers['mcp-session-id'];
    const closed =
      typeof id === 'string' && closedForRoom.get(id) === authOf(request).credential.id;
    return jsonRpcError(
      reply,
      404,
      closed
        ? 'Session closed: it sat idle while its account needed room for a new one; reconnect with initialize'
        : 'Session not found; reconnect with initialize',
    );
  }

  function noRoom(reply: FastifyReply) {
    void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    return jsonRpcError(
      reply,
      503,
      'This server has no room for another MCP session; try again shortly',
    );
  }

  async function startSession(request: FastifyRequest, reply: FastifyReply, auth: SpaceAuth) {
    const room = await makeRoom(auth);
    if (room === false) return noRoom(reply);
    if (room !== true) {
      void reply.header('retry-after', String(room.retryAfter));
      return jsonRpcError(
        reply,
        429,
        `This account has ${room.cap} MCP sessions open, the most its plan allows, all in use; end one (DELETE /mcp) or retry in ${room.retryAfter} s`,
      );
    }
    const server = createMemoryServer({
      graph: services.graph,
      reads: services.reads,
      history: services.history,
      duplicates: services.duplicates,
      recall: services.recall,
      usage: services.usage,
      bus: services.bus,
      auth,
      log: request.log,
      updates: 'subscribe',
      webDistDir: http.config.WEB_DIST_DIR,
    });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Each answer as one JSON body, not an SSE stream (decision 014): the
      // tools send no notifications mid-call, and a resource update goes to
      // the session's GET stream, which stays SSE.
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        const session: Session = {
          id,
          transport,
          server,
          accountId: auth.accountId,
          path: pathSpaceOf(request),
          credentialId: auth.credential.id,
          lastSeen: clock(),
          lastUse: ++uses,
          stopWatching: () => {},
        };
        sessions.set(id, session);
        session.stopWatching = services.credentials.watch(auth, () => end(session));
      },
    });
    // The client's DELETE, or our own close: either way the session is gone.
    transport.onclose = () => {
      const session = transport.sessionId ? sessions.get(transport.sessionId) : undefined;
      if (session) forget(session);
    };
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  async function legacyPost(request: FastifyRequest, reply: FastifyReply, auth: SpaceAuth) {
    const session = sessionOf(request);
    if (session) {
      reply.hijack();
      return session.transport.handleRequest(request.raw, reply.raw, request.body);
    }
    if (request.headers['mcp-session-id'] !== undefined) {
      return unknownSession(request, reply);
    }
    if (!isInitializeRequest(request.body)) {
      return jsonRpcError(reply, 400, 'No session: the first request must be initialize');
    }
    return startSession(request, reply, auth);
  }

  // ── 2026-07-28: stateless, one handler per account ─────────────────────────

  function laneOf(accountId: string, space: SpaceRef): AccountLane {
    const key = `${accountId}/${space.id}`;
    let lane = lanes.get(key);
    if (!lane) {
      const bus = new AccountEventBus(services.bus, accountId, space.id);
      const handler = createMcpHandler(
        (ctx) =>
          createMemoryServer({
            graph: services.graph,
            reads: services.reads,
            history: services.history,
            duplicates: services.duplicates,
            recall: services.recall,
            usage: services.usage,
            bus: services.bus,
            auth: { ...engramAuthOf(ctx.authInfo), space },
            log: app.log,
            updates: 'none',
            webDistDir: http.config.WEB_DIST_DIR,
          }),
        {
          legacy: 'reject',
          bus,
          maxSubscriptions: http.config.MCP_MAX_SESSIONS_PER_ACCOUNT,
          onerror: (error) => app.log.debug({ err: error }, 'MCP request refused'),
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
      if (sessions.size + listens >= http.config.MCP_MAX_SESSIONS) return noRoom(reply);
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

  // ── routes ────────────────────────────────────────────────────────────────

  // Origin and Host first (DNS rebinding, other sites' pages), then the credential.
  const onRequest = [
    http.checkOrigin,
    mcpAuthenticateWith(http.resolveCredential, http.config.PUBLIC_URL),
  ];
  const schema = { hide: true };

  app.get(PROTECTED_RESOURCE_METADATA_PATH, { schema }, async (request, reply) => {
    // Built from PUBLIC_URL or the banner's origin, never cached by a proxy in front (docs/security.md).
    void reply.header('access-control-allow-origin', '*').header('cache-control', 'no-store');
    return protectedResourceMetadata(
      mcpResourceUrl(http.config.PUBLIC_URL, request),
      oauthIssuer(http.config),
    );
  });

  /**
   * The space the URL names, for the request's credential: 404 for a slug
   * the account has not, 403 for a space the credential may not read (each
   * tool then checks read or write for itself).
   */
  async function spaceAuthOf(request: FastifyRequest, reply: FastifyReply) {
    try {
      // `?create=1` on a space's address makes it on first use (an app's new end user).
      return await services.spaces.resolveSpace(authOf(request), pathSpaceOf(request), 'read', {
        create: asksToCreate(request),
      });
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        void jsonRpcError(reply, error.status, error.message);
        return undefined;
      }
      throw error;
    }
  }

  const post = async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = await spaceAuthOf(request, reply);
    if (!auth) return reply;
    return isLegacyPost(request)
      ? legacyPost(request, reply, auth)
      : modernPost(request, reply, auth);
  };
  const options = { onRequest, schema, bodyLimit: MCP_BODY_LIMIT };
  app.post(MCP_PATH, options, post);
  app.post(`${MCP_PATH}/:space`, options, post);

  // GET opens a 2025 session's server-to-client stream; DELETE ends the session.
  // The 2026 revision has neither: without a session they are 405 (not 400:
  // clients probing for the old SSE transport give up cleanly on 405).
  const streamOrEnd = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers['mcp-session-id'] === undefined) {
      void reply.header('allow', 'POST');
      return jsonRpcError(reply, 405, 'Method not allowed without an Mcp-Session-Id');
    }
    const session = sessionOf(request);
    if (!session) return unknownSession(request, reply);
    reply.hijack();
    return session.transport.handleRequest(request.raw, reply.raw);
  };
  for (const path of [MCP_PATH, `${MCP_PATH}/:space`]) {
    app.get(path, { onRequest, schema }, streamOrEnd);
    app.delete(path, { onRequest, schema }, streamOrEnd);
  }
};
