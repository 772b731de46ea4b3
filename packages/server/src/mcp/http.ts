import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authOf } from '../http/authenticate.js';
import type { RouteDeps } from '../route-deps.js';
import type { AuthContext } from '../lib/auth-context.js';
import { createMemoryServer } from './memory-server.js';

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  accountId: string;
  /** The session token or API key that opened it: the only one that may use it. */
  credentialId: string;
  /** Runtime clock (ms) of the last request. */
  lastSeen: number;
  /** Order of last use across sessions (the clock may not move between requests). */
  lastUse: number;
  stopWatching: () => void;
}

/** How often idle sessions are looked for (also at every new session). */
const SWEEP_MS = 15_000;
/** A tool call may carry a whole batch (up to 100,000 items, memory-server.ts). */
const MCP_BODY_LIMIT = 32 * 1024 * 1024;
/** Seconds a client is told to wait when the node has no room for a session. */
const RETRY_AFTER_SECONDS = 30;

function jsonRpcError(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * The MCP Streamable HTTP endpoint. Every request is authenticated (API key or
 * session token); a session belongs to the credential that opened it, is
 * invisible to any other, and ends when that credential is revoked or expires,
 * when it idles past MCP_SESSION_IDLE_MINUTES, or when its account opens more
 * than MCP_MAX_SESSIONS_PER_ACCOUNT (the least recently used goes). Sessions
 * live in this node's memory.
 */
export const mcpRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const sessions = new Map<string, Session>();
  let uses = 0;
  const idleMs = deps.config.MCP_SESSION_IDLE_MINUTES * 60_000;
  const clock = () => deps.now().getTime();

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
  }

  const sweep = setInterval(sweepIdle, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    for (const session of [...sessions.values()]) end(session);
  });

  function sessionOf(request: FastifyRequest): Session | undefined {
    const id = request.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    // Another credential's session id — of this account or another — is as unknown as a made-up one.
    if (!session || session.credentialId !== authOf(request).credential.id) return undefined;
    session.lastSeen = clock();
    session.lastUse = ++uses;
    return session;
  }

  /** Makes room for one more session of the account; false when the node is full. */
  function makeRoom(auth: AuthContext): boolean {
    sweepIdle();
    const own = [...sessions.values()].filter((s) => s.accountId === auth.accountId);
    if (own.length >= deps.config.MCP_MAX_SESSIONS_PER_ACCOUNT) {
      // A client that crashed without DELETE must not lock its account out.
      own.sort((a, b) => a.lastUse - b.lastUse);
      for (const session of own.slice(
        0,
        own.length - deps.config.MCP_MAX_SESSIONS_PER_ACCOUNT + 1,
      )) {
        end(session);
      }
    }
    return sessions.size < deps.config.MCP_MAX_SESSIONS;
  }

  async function startSession(request: FastifyRequest, reply: FastifyReply) {
    const auth = authOf(request);
    if (!makeRoom(auth)) {
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return jsonRpcError(
        reply,
        503,
        'This server has no room for another MCP session; try again shortly',
      );
    }
    const server = createMemoryServer({
      graph: deps.graph,
      usage: deps.usage,
      bus: deps.bus,
      auth,
      log: request.log,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = {
          id,
          transport,
          server,
          accountId: auth.accountId,
          credentialId: auth.credential.id,
          lastSeen: clock(),
          lastUse: ++uses,
          stopWatching: () => {},
        };
        sessions.set(id, session);
        session.stopWatching = deps.credentials.watch(auth, () => end(session));
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

  // Origin and Host first (DNS rebinding, other sites' pages), then the credential.
  const onRequest = [deps.checkOrigin, deps.authenticate];
  const schema = { hide: true };

  app.post('/mcp', { onRequest, schema, bodyLimit: MCP_BODY_LIMIT }, async (request, reply) => {
    const session = sessionOf(request);
    if (session) {
      reply.hijack();
      return session.transport.handleRequest(request.raw, reply.raw, request.body);
    }
    if (request.headers['mcp-session-id'] !== undefined) {
      return jsonRpcError(reply, 404, 'Session not found; start a new one with initialize');
    }
    if (!isInitializeRequest(request.body)) {
      return jsonRpcError(reply, 400, 'No session: the first request must be initialize');
    }
    return startSession(request, reply);
  });

  // GET opens the server-to-client stream; DELETE ends the session.
  const streamOrEnd = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers['mcp-session-id'] === undefined) {
      return jsonRpcError(reply, 400, 'Missing Mcp-Session-Id header');
    }
    const session = sessionOf(request);
    if (!session) return jsonRpcError(reply, 404, 'Session not found');
    reply.hijack();
    return session.transport.handleRequest(request.raw, reply.raw);
  };
  app.get('/mcp', { onRequest, schema }, streamOrEnd);
  app.delete('/mcp', { onRequest, schema }, streamOrEnd);
};
