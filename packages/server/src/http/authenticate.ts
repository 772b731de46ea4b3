import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../lib/auth-context.js';
import { unauthorized } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authenticate hook on protected routes. */
    auth: AuthContext | null;
  }
}

/** Turns a bearer credential into who is acting, or undefined when it is no valid credential. */
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

/** An onRequest hook for protected routes: anything missing, unknown or expired is a 401. */
export function authenticateWith(resolve: CredentialResolver) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply) {
    const credential = credentialOf(request);
    if (!credential || credential.length > 512) throw unauthorized();
    const auth = await resolve(credential);
    if (!auth) throw unauthorized('Invalid or expired credentials');
    request.auth = auth;
  };
}

/** The acting context on a route behind the authenticate hook. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
