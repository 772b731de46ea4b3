import { spaceSlug } from '@engram/shared';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import { localOrigin } from './local-origin.js';
import { LOOPBACK_HOSTS, loopbackHostOf } from './loopback.js';

/**
 * Where `/mcp` is and who issues its tokens (RFC 9728, docs/connect.md): read
 * by MCP's 401 challenge and by the OAuth feature's metadata routes.
 */

export const MCP_PATH = '/mcp';

/** Where RFC 9728 metadata is served: this prefix, then the resource's path (`/mcp`, `/mcp/<slug>`). */
export const PROTECTED_RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** The route of a space's Protected Resource Metadata (issue 36: `/mcp/<slug>` is its own resource). */
export const SPACE_PROTECTED_RESOURCE_METADATA_ROUTE = `${PROTECTED_RESOURCE_METADATA_PREFIX}${MCP_PATH}/:space`;

/** What an MCP address serves: the default space (`/mcp`) or the space named in it (`/mcp/<slug>`). */
export interface McpTarget {
  /** `/mcp` or `/mcp/<slug>`. */
  path: string;
  /** The slug of `/mcp/<slug>`; absent for `/mcp`. */
  space?: string;
}

/** `/mcp` or `/mcp/<slug>` (a valid slug) as a target; anything else is none. */
export function mcpTargetOf(path: string): McpTarget | undefined {
  if (path === MCP_PATH) return { path };
  if (!path.startsWith(`${MCP_PATH}/`)) return undefined;
  const slug = path.slice(MCP_PATH.length + 1);
  return spaceSlug.safeParse(slug).success ? { path, space: slug } : undefined;
}

/** The MCP target a request addresses: its path without the query, or the resource its metadata path names. */
export function mcpTargetOfRequest(request: Pick<FastifyRequest, 'url'>): McpTarget | undefined {
  const path = request.url.split('?', 1)[0]!;
  const resourcePath = path.startsWith(PROTECTED_RESOURCE_METADATA_PREFIX)
    ? path.slice(PROTECTED_RESOURCE_METADATA_PREFIX.length)
    : path;
  return mcpTargetOf(resourcePath);
}

/** The settings that say where the server is (config.ts). */
export interface ServerAddress {
  PUBLIC_URL?: string | undefined;
  HOST: string;
  PORT: number;
}

/**
 * The OAuth authorization server's identifier (docs/connect.md): PUBLIC_URL's
 * origin, else the origin the start banner prints (`localOrigin`: for the
 * default loopback bind `http://127.0.0.1:PORT`), so a person signed in at
 * the printed address is never asked to sign in again to connect an app.
 * Clients compare it with the address they reached, so a server behind a
 * proxy needs PUBLIC_URL for OAuth. Never read from a request.
 */
export function oauthIssuer(config: ServerAddress): string {
  return config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : localOrigin(config);
}

/**
 * The addresses of `/mcp` tokens may be issued for, the issuer's first.
 * Without PUBLIC_URL the server is reached on loopback under any of its
 * names, and a client names `/mcp` as it reached it (`localhost` as well as
 * the printed `127.0.0.1`): those are accepted too, at the same port.
 */
export function mcpResources(config: ServerAddress): string[] {
  const issued = `${oauthIssuer(config)}${MCP_PATH}`;
  if (config.PUBLIC_URL) return [issued];
  const loopback = [...LOOPBACK_HOSTS].map((host) => `http://${host}:${config.PORT}${MCP_PATH}`);
  return [...new Set([issued, ...loopback])];
}

/**
 * Which MCP target a resource indicator names, when it is one tokens may be
 * issued for: one of `resources` (the `/mcp` addresses), or one of them
 * followed by `/<slug>` (a space's own address).
 */
export function mcpTargetOfResource(
  resources: readonly string[],
  resource: string,
): McpTarget | undefined {
  for (const base of resources) {
    if (resource === base) return { path: MCP_PATH };
    if (resource.startsWith(`${base}/`)) return mcpTargetOf(MCP_PATH + resource.slice(base.length));
  }
  return undefined;
}

/**
 * The resource an MCP request (or its metadata request) addresses: `/mcp`,
 * or `/mcp/<slug>` for a space's address; under PUBLIC_URL when set. Without
 * it, at the origin the start banner prints (`localOrigin` of the address
 * the server is bound to), unless the request came to one of the loopback
 * names exactly (`localhost`, `127.0.0.1`, `[::1]`): a client checks that
 * the metadata names the resource it reached (RFC 9728), so one that was
 * given `http://localhost:PORT/mcp` is answered with that. No other Host,
 * and never X-Forwarded-Host, is written into an answer (docs/security.md,
 * OAuth): a cache in front cannot be made to hand out another server's
 * address. The port is the socket's, not a header's.
 */
export function mcpResourceUrl(publicUrl: string | undefined, request: FastifyRequest): URL {
  const path = mcpTargetOfRequest(request)?.path ?? MCP_PATH;
  if (publicUrl) return new URL(path, publicUrl);
  const bound = request.server.server.address();
  const port =
    request.socket.localPort ?? (bound && typeof bound === 'object' ? bound.port : undefined);
  const reached = loopbackHostOf(request.headers.host);
  if (reached && port !== undefined) return new URL(path, `http://${reached}:${port}`);
  const host = bound && typeof bound === 'object' ? bound.address : '127.0.0.1';
  return new URL(path, localOrigin({ HOST: host, PORT: port ?? 80 }));
}

/**
 * RFC 9728 Protected Resource Metadata for `/mcp` (or `/mcp/<slug>`): Engram's own OAuth
 * authorization server (features/oauth, docs/connect.md) issues its tokens;
 * API keys and session tokens are accepted as bearer credentials too.
 */
export function protectedResourceMetadata(
  resource: URL,
  authorizationServer: string,
): OAuthProtectedResourceMetadata {
  return {
    resource: resource.href,
    authorization_servers: [authorizationServer],
    scopes_supported: ['memory:read', 'memory:write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Engram MCP',
    resource_documentation: new URL('/docs', resource).href,
  };
}
