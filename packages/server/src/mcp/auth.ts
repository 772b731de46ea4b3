import type { IncomingMessage } from 'node:http';
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialResolver } from '../http/authenticate.js';
import type { AuthContext } from '../lib/auth-context.js';
import { MCP_PATH, mcpResourceUrl, mcpTargetOfRequest } from '../lib/protected-resource.js';

/** Where the Protected Resource Metadata of `/mcp` is served (RFC 9728 path insertion). */
export const PROTECTED_RESOURCE_METADATA_PATH = new URL(
  getOAuthProtectedResourceMetadataUrl(new URL(MCP_PATH, 'http://engram.invalid')),
).pathname;

/** A credential's longest accepted length; anything longer is no credential of ours. */
const CREDENTIAL_MAX = 512;
/** `AuthInfo.expiresAt` (seconds) for a credential without an expiry: it lives until revoked. */
const NEVER = Number.MAX_SAFE_INTEGER;

/** The account and credential an MCP request acts for, carried in the SDK's `AuthInfo`. */
export function engramAuthOf(info: AuthInfo | undefined): AuthContext {
  const auth = info?.extra?.['engram'] as AuthContext | undefined;
  // The routes set it before any SDK code runs; a request without it never reaches a handler.
  if (!auth) throw new Error('MCP request without Engram credentials');
  return auth;
}

/**
 * The onRequest hook of `/mcp`: the bearer credential (an API key, a session
 * token or an OAuth access token; `X-API-Key` is read as one too) is verified through the
 * SDK's resource-server helper, and a refusal is the SDK's 401 challenge
 * whose `WWW-Authenticate` names the Protected Resource Metadata, with
 * Engram's usual error body. An OAuth token is accepted only at the
 * address it was issued for (RFC 8707): one for `/mcp/<slug>` there alone,
 * one for `/mcp` at `/mcp` alone. The verified `AuthInfo` is left on the
 * Node request (`req.auth`), where the SDK's Node transports read it.
 */
export function mcpAuthenticateWith(resolve: CredentialResolver, publicUrl: string | undefined) {
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      const auth = token.length <= CREDENTIAL_MAX ? await resolve(token) : undefined;
      if (!auth)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid or expired credentials');
      return {
        token,
        clientId: auth.credential.id,
        scopes: auth.scopes ?? [],
        expiresAt: auth.credential.expiresAt
          ? Math.floor(auth.credential.expiresAt.getTime() / 1000)
          : NEVER,
        extra: { engram: auth },
      };
    },
  };

  return async function authenticateMcp(request: FastifyRequest, reply: FastifyReply) {
    const apiKey = request.headers['x-api-key'];
    const header =
      request.headers.authorization ??
      (typeof apiKey === 'string' && apiKey.length > 0 ? `Bearer ${apiKey}` : undefined);
    const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(
      mcpResourceUrl(publicUrl, request),
    );
    try {
      const info = await verifyBearerToken(header, { verifier, resourceMetadataUrl });
      const auth = engramAuthOf(info);
      if (auth.resource !== undefined && auth.resource !== mcpTargetOfRequest(request)?.path) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          `Access token was issued for ${auth.resource}, not this address`,
        );
      }
      request.auth = auth;
      (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = info;
    } catch (error) {
      // The database being down is not the client's fault: the error handler answers it.
      if (!(error instanceof OAuthError)) throw error;
      const challenge = bearerAuthChallengeResponse(error, { resourceMetadataUrl });
      const wwwAuthenticate = challenge.headers.get('www-authenticate');
      if (wwwAuthenticate) void reply.header('www-authenticate', wwwAuthenticate);
      return reply.status(challenge.status).send({
        error: error.message,
        code: challenge.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
      });
    }
  };
}
