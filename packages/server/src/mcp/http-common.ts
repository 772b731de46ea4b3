import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SpacesService } from '../features/spaces/index.js';
import type { Entitlements } from '../features/entitlements/index.js';
import type { CredentialWatch } from '../realtime/credential-watch.js';
import type { MemoryServerDeps } from './memory-server-deps.js';

/** What /mcp runs on: the memory server's services, and the watch that ends what a revoked credential opened. */
export type McpServices = Pick<
  MemoryServerDeps,
  'graph' | 'reads' | 'history' | 'duplicates' | 'recall' | 'usage' | 'bus'
> & {
  credentials: CredentialWatch;
  spaces: Pick<SpacesService, 'resolveSpace'>;
  entitlements: Pick<Entitlements, 'planOf'>;
};

/** The slug in the path (`/mcp/<slug>`), undefined for `/mcp` (the default space). */
export function pathSpaceOf(request: FastifyRequest): string | undefined {
  return (request.params as { space?: string } | undefined)?.space;
}

/** Seconds a client is told to wait when the node has no room for a session. */
const RETRY_AFTER_SECONDS = 30;

export function jsonRpcError(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/** 503: sessions and listens open on this node have filled MCP_MAX_SESSIONS. */
export function noRoom(reply: FastifyReply) {
  void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return jsonRpcError(
    reply,
    503,
    'This server has no room for another MCP session; try again shortly',
  );
}
