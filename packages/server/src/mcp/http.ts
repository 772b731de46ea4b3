import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphDeps } from '../features/graph/graph.service.js';
import { authOf } from '../http/authenticate.js';
import type { RouteDeps } from '../http/route-deps.js';
import type { EventBus } from '../realtime/event-bus.js';
import { createMemoryServer } from './memory-server.js';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  accountId: string;
  lastSeen: number;
}

/** Sessions unused this long are closed; clients start a new one. */
const IDLE_MS = 60 * 60 * 1000;

function jsonRpcError(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * The MCP Streamable HTTP endpoint. Every request is authenticated (API key or
 * session token); a session belongs to the account that opened it and is
 * invisible to any other. Sessions live in this node's memory.
 */
export const mcpRoutes: FastifyPluginAsync<
  RouteDeps & { graph: GraphDeps; bus: EventBus }
> = async (app, deps) => {
  const sessions = new Map<string, Session>();

  const sweep = setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const [id, session] of sessions) {
      if (session.lastSeen < cutoff) void session.transport.close();
      if (session.lastSeen < cutoff) sessions.delete(id);
    }
  }, 60_000);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.all([...sessions.values()].map((session) => session.transport.close()));
    sessions.clear();
  });

  function sessionOf(request: FastifyRequest): Session | undefined {
    const id = request.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    // Another account's session id is as unknown as a made-up one.
    if (!session || session.accountId !== authOf(request).accountId) return undefined;
    session.lastSeen = Date.now();
    return session;
  }

  async function startSession(request: FastifyRequest, reply: FastifyReply) {
    const auth = authOf(request);
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
        sessions.set(id, { transport, server, accountId: auth.accountId, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  const schema = { hide: true };

  app.post('/mcp', { onRequest: deps.authenticate, schema }, async (request, reply) => {
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
  app.get('/mcp', { onRequest: deps.authenticate, schema }, streamOrEnd);
  app.delete('/mcp', { onRequest: deps.authenticate, schema }, streamOrEnd);
};
