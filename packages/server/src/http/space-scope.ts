import { SPACE_HEADER, SPACE_QUERY, type Access } from '@engram/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext, SpaceAuth } from '../lib/auth-context.js';
import { unauthorized } from '../lib/errors.js';
import { requireAllSpaces } from '../lib/space-access.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the space hook: the credential acting in the space the request named. */
    spaceAuth: SpaceAuth | null;
  }
}

/** The spaces feature's resolver: the space a credential asked for, checked (403/404) or created on request. */
export type SpaceResolver = (
  auth: AuthContext,
  slug: string | undefined,
  access: Access,
  options: { create?: boolean },
) => Promise<SpaceAuth>;

const HEADER = SPACE_HEADER.toLowerCase();

/** The slug a request names: the X-Engram-Space header, else `?space=` (the header wins). */
export function spaceSlugOf(request: FastifyRequest): string | undefined {
  const header = request.headers[HEADER];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  const query = request.query as Record<string, unknown> | undefined;
  const value = query?.[SPACE_QUERY];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Whether the request asks for its missing space to be made (`?create=1`, never a silent default). */
export function asksToCreate(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown> | undefined)?.['create'];
  return value === '1' || value === 'true';
}

/**
 * A preValidation hook (it reads the query as sent, before a route's schema
 * keeps only its own fields) for routes that act in one space: reads need
 * read access, every other operation write. `?create=1` asks for a space
 * that does not exist yet to be made (never a silent default).
 */
export function spaceScopeWith(resolve: SpaceResolver, { optional = false } = {}) {
  return async function resolveSpace(request: FastifyRequest, _reply: FastifyReply) {
    const auth = request.auth;
    if (!auth) throw unauthorized();
    // Optional (the dashboard's counts): naming no space means every space,
    // which a credential limited to some spaces may not read.
    if (optional && spaceSlugOf(request) === undefined) {
      requireAllSpaces(auth, 'read');
      return;
    }
    const operation = (request.routeOptions.config as { operation?: { type?: string } }).operation;
    const reads = operation ? operation.type === 'query' : request.method === 'GET';
    const access: Access = reads ? 'read' : 'write';
    request.spaceAuth = await resolve(auth, spaceSlugOf(request), access, {
      create: asksToCreate(request),
    });
  };
}

/** The credential, bound to the space the request named if it named one (behind the optional hook). */
export function namedSpaceAuthOf(request: FastifyRequest): AuthContext | SpaceAuth {
  const auth = request.spaceAuth ?? request.auth;
  if (!auth) throw unauthorized();
  return auth;
}

/** The space-bound credential of a route behind the space hook. */
export function spaceAuthOf(request: FastifyRequest): SpaceAuth {
  if (!request.spaceAuth) throw unauthorized();
  return request.spaceAuth;
}
