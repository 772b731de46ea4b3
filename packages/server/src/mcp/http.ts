import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authOf } from '../http/authenticate.js';
import { asksToCreate } from '../http/space-scope.js';
import { AppError } from '../lib/errors.js';
import {
  MCP_PATH,
  mcpResourceUrl,
  oauthIssuer,
  protectedResourceMetadata,
} from '../lib/protected-resource.js';
import type { HttpContext } from '../http/context.js';
import { mcpAuthenticateWith, PROTECTED_RESOURCE_METADATA_PATH } from './auth.js';
import { jsonRpcError, pathSpaceOf, type McpServices } from './http-common.js';
import { sessionLane } from './http-sessions.js';
import { statelessLane } from './http-stateless.js';

/** How often idle sessions and account lanes are looked for (also at every new session). */
const SWEEP_MS = 15_000;
/** A tool call may carry a whole batch (up to 100,000 items, shared's MCP_BATCH_MAX). */
const MCP_BODY_LIMIT = 32 * 1024 * 1024;

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
 * - **2026-07-28** (stateless, http-stateless.ts): any node answers any
 *   request; a `subscriptions/listen` stream hears every change to its own
 *   space's graph, written on any node, and nothing of other accounts'.
 * - **2025 era** (initialize + `Mcp-Session-Id`, picked with the SDK's
 *   `isLegacyRequest`; http-sessions.ts): sessions in this node's memory
 *   (sticky routing), each its credential's alone.
 *
 * Sessions and listens share the node's room (MCP_MAX_SESSIONS). Every
 * request is authenticated (API key or session token); a refusal points at
 * the Protected Resource Metadata (RFC 9728).
 */
export const mcpRoutes: FastifyPluginAsync<{
  services: McpServices;
  http: HttpContext;
}> = async (app, { services, http }) => {
  const idleMs = http.config.MCP_SESSION_IDLE_MINUTES * 60_000;
  const clock = () => http.now().getTime();
  const sessions = sessionLane({
    services,
    http,
    clock,
    sweepIdle,
    listens: () => stateless.listens,
  });
  const stateless = statelessLane({
    services,
    http,
    clock,
    log: app.log,
    sessions: () => sessions.size,
  });

  function sweepIdle(): void {
    const cutoff = clock() - idleMs;
    sessions.sweep(cutoff);
    stateless.sweep(cutoff);
  }

  const sweep = setInterval(sweepIdle, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    sessions.endAll();
    await stateless.close();
  });

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
      ? sessions.post(request, reply, auth)
      : stateless.post(request, reply, auth);
  };
  const options = { onRequest, schema, bodyLimit: MCP_BODY_LIMIT };
  app.post(MCP_PATH, options, post);
  app.post(`${MCP_PATH}/:space`, options, post);

  // GET and DELETE are the 2025 sessions' alone (http-sessions.ts).
  for (const path of [MCP_PATH, `${MCP_PATH}/:space`]) {
    app.get(path, { onRequest, schema }, sessions.streamOrEnd);
    app.delete(path, { onRequest, schema }, sessions.streamOrEnd);
  }
};
