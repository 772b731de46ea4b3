import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';

/**
 * Where `/mcp` is and who issues its tokens (RFC 9728, docs/connect.md): read
 * by MCP's 401 challenge and by the OAuth feature's metadata routes.
 */

export const MCP_PATH = '/mcp';

/**
 * The OAuth authorization server's identifier (docs/connect.md): PUBLIC_URL's
 * origin, else `http://localhost:PORT`. Clients compare it with the address
 * they reached, so a server behind a proxy needs PUBLIC_URL for OAuth.
 */
export function oauthIssuer(config: { PUBLIC_URL?: string | undefined; PORT: number }): string {
  return config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : `http://localhost:${config.PORT}`;
}

/**
 * The addresses of `/mcp` tokens may be issued for, the first the issuer's.
 * Without PUBLIC_URL the server is reached on loopback, under any of its
 * names: a client names `/mcp` as it reached it (127.0.0.1 or localhost).
 */
export function mcpResources(config: { PUBLIC_URL?: string | undefined; PORT: number }): string[] {
  if (config.PUBLIC_URL) return [`${oauthIssuer(config)}/mcp`];
  return ['localhost', '127.0.0.1', '[::1]'].map((host) => `http://${host}:${config.PORT}/mcp`);
}

/**
 * The resource `/mcp` is, as a client reaches it: under PUBLIC_URL when set,
 * else at the address the request was made to (its Host was checked first).
 */
export function mcpResourceUrl(publicUrl: string | undefined, request: FastifyRequest): URL {
  if (publicUrl) return new URL(MCP_PATH, publicUrl);
  return new URL(MCP_PATH, `${request.protocol}://${request.host}`);
}

/**
 * RFC 9728 Protected Resource Metadata for `/mcp`: Engram's own OAuth
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
