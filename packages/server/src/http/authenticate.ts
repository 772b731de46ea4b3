import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../lib/auth-context.js';
import { unauthorized } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authenticate hook on protected routes. */
    auth: AuthContext | null;
  }
}

/** Turns a bearer credential into who is acting, or undefined when it is not one this resolver knows. */
export type CredentialResolver = (credential: string) => Promise<AuthContext | undefined>;

function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey : undefined;
}

/**
 * An onRequest hook for protected routes: the first resolver that knows the
 * credential wins; anything missing, unknown or expired is a 401.
 */
export function authenticateWith(resolvers: CredentialResolver[]) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply) {
    const credential = credentialOf(request);
    if (!credential || credential.length > 512) throw unauthorized();
    for (const resolve of resolvers) {
      const auth = await resolve(credential);
      if (auth) {
        request.auth = auth;
        return;
      }
    }
    throw unauthorized('Invalid or expired credentials');
  };
}

/** The acting context on a route behind the authenticate hook. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
