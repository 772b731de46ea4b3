import { ACCOUNT_HEADER, CLIENT_ID_HEADER, CLIENT_ID_PATTERN } from '@engram/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../lib/auth-context.js';
import { unauthorized } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authenticate hook on protected routes. */
    auth: AuthContext | null;
  }
}

/**
 * Turns a bearer credential into who is acting in the account named
 * (`account`, X-Engram-Account; none: the credential's own), or undefined
 * when it is no valid credential.
 */
export type CredentialResolver = (
  credential: string,
  account?: string,
) => Promise<AuthContext | undefined>;

/** The account the request names in X-Engram-Account, if any. */
export function accountOf(request: FastifyRequest): string | undefined {
  const header = request.headers[ACCOUNT_HEADER.toLowerCase()];
  return typeof header === 'string' && header.length > 0 ? header : undefined;
}

/** The bearer credential a request carries (Authorization: Bearer, or X-API-Key). */
export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey : undefined;
}

/** An onRequest hook for protected routes: anything missing, unknown or expired is a 401. */
export function authenticateWith(resolve: CredentialResolver) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply) {
    const credential = credentialOf(request);
    if (!credential || credential.length > 512) throw unauthorized();
    const auth = await resolve(credential, accountOf(request));
    if (!auth) throw unauthorized('Invalid or expired credentials');
    // OAuth access tokens are issued for /mcp alone (its own hook), never for /api or /auth.
    if (auth.credential.kind === 'oauth') throw unauthorized(OAUTH_MCP_ONLY_MESSAGE);
    const origin = clientOf(request);
    // A copy: the resolver may hand out one cached context to many requests.
    request.auth = origin === undefined ? auth : { ...auth, origin };
  };
}

/** The client the request names in CLIENT_ID_HEADER, when well-formed. */
function clientOf(request: FastifyRequest): string | undefined {
  const header = request.headers[CLIENT_ID_HEADER];
  return typeof header === 'string' && CLIENT_ID_PATTERN.test(header) ? header : undefined;
}

/**
 * An onRequest hook for a person's own acts (profile, password, personal key,
 * managing API keys): a session token only. An API key is an agent; it must
 * not read or replace its owner's credentials, so it gets a 401 here.
 */
export function sessionOnlyWith(resolve: CredentialResolver) {
  const authenticate = authenticateWith(resolve);
  return async function authenticateSession(request: FastifyRequest, reply: FastifyReply) {
    await authenticate(request, reply);
    if (request.auth?.credential.kind !== 'session') {
      request.auth = null;
      throw unauthorized(SESSION_ONLY_MESSAGE);
    }
  };
}

export const OAUTH_MCP_ONLY_MESSAGE = 'OAuth access tokens are accepted on /mcp only';

export const SESSION_ONLY_MESSAGE =
  'This action needs a signed-in session: API keys are not accepted here';

/** The acting context on a route behind the authenticate hook. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
