import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UNLIMITED } from '@engram/shared';
import { authOf } from '../http/authenticate.js';
import type { HttpContext } from '../http/context.js';
import type { AuthContext, SpaceAuth } from '../lib/auth-context.js';
import { jsonRpcError, noRoom, pathSpaceOf, type McpServices } from './http-common.js';
import { createMemoryServer, memoryServicesOf } from './memory-server.js';

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

/** A session idle this long may be closed to make room for its account's new one. */
const IDLE_FOR_ROOM_MS = 60_000;
/** Sessions closed to make room, remembered so their next request is told why (the newest this many). */
const CLOSED_REMEMBERED = 10_000;

export interface SessionLaneOptions {
  services: McpServices;
  http: HttpContext;
  /** Runtime clock (ms). */
  clock: () => number;
  /** Ends idle sessions and idle stateless lanes (before room is counted). */
  sweepIdle: () => void;
  /** 2026-era listens open on this node: they share its room with the sessions. */
  listens: () => number;
}

/** The 2025 era's sessions on this node, and the requests that use them. */
export interface SessionLane {
  /** Sessions open on this node. */
  readonly size: number;
  /** A POST of the 2025 era: to its session, or an initialize that opens one. */
  post(request: FastifyRequest, reply: FastifyReply, auth: SpaceAuth): Promise<unknown>;
  /** A GET (the session's server-to-client stream) or DELETE (its end). */
  streamOrEnd(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** Ends the sessions last used before `cutoff` (runtime clock, ms). */
  sweep(cutoff: number): void;
  /** Ends every session (the server is closing). */
  endAll(): void;
}

/**
 * The 2025 era (initialize + `Mcp-Session-Id`): sessions in this node's
 * memory (sticky routing). A session belongs to the credential that opened
 * it, is invisible to any other, and ends when that credential is revoked or
 * expires, when it idles past MCP_SESSION_IDLE_MINUTES, or — idle for a
 * minute or more — when its account, at its cap (`sessionCap`), opens another.
 */
export function sessionLane({
  services,
  http,
  clock,
  sweepIdle,
  listens,
}: SessionLaneOptions): SessionLane {
  const sessions = new Map<string, Session>();
  /** Sessions closed to make room for another: their id → the credential that held them. */
  const closedForRoom = new Map<string, string>();
  let uses = 0;

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
    return sessions.size + listens() < http.config.MCP_MAX_SESSIONS;
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
      ...memoryServicesOf(services),
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

  return {
    get size() {
      return sessions.size;
    },
    post: legacyPost,
    streamOrEnd,
    sweep(cutoff) {
      for (const session of sessions.values()) if (session.lastSeen < cutoff) end(session);
    },
    endAll() {
      for (const session of [...sessions.values()]) end(session);
    },
  };
}
