import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  errorResponse,
  idParams,
  okResponse,
  oauthDecision,
  oauthDecisionInput,
  oauthGrantList,
  oauthInteraction,
  oauthInteractionParams,
} from '@engram/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { authOf } from '../../http/authenticate.js';
import { requireFullAccess } from '../../lib/space-access.js';
import { notFound } from '../../lib/errors.js';
import {
  mcpResourceUrl,
  mcpTargetOfRequest,
  protectedResourceMetadata,
  SPACE_PROTECTED_RESOURCE_METADATA_ROUTE,
} from '../../lib/protected-resource.js';
import type { RouteOptions } from '../feature.js';
import { DISCOVERY_PATH, OAUTH_ROUTES } from './oauth-provider.js';
import type { OAuthService } from './oauth.service.js';
import { MEMORY_SCOPES } from './scopes.js';

const errors = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse };
/** Dynamic client registrations allowed per client address per hour. */
const REGISTRATIONS_PER_HOUR = 10;

/**
 * The library keeps a sign-in session in a cookie of its own; Engram's
 * sign-in is the web app's, so that cookie is never shown to it and every
 * authorization is asked in the web app (decision 022).
 */
function withoutProviderSession(raw: IncomingMessage): void {
  const cookie = raw.headers.cookie;
  if (!cookie) return;
  const kept = cookie
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part && !part.startsWith('_session'));
  if (kept.length > 0) raw.headers.cookie = kept.join('; ');
  else delete raw.headers.cookie;
}

/**
 * An authorization request that names no scope asks for what `/mcp`'s
 * metadata offers (both memory scopes), as MCP clients are told to; the
 * person still sees and answers exactly that.
 */
function withDefaultScope(url: string | undefined): string | undefined {
  if (!url) return url;
  const parsed = new URL(url, 'http://engram.invalid');
  if (parsed.searchParams.has('scope') || !parsed.searchParams.has('client_id')) return undefined;
  parsed.searchParams.set('scope', MEMORY_SCOPES.join(' '));
  return `${parsed.pathname}${parsed.search}`;
}

export const oauthRoutes: FastifyPluginAsyncZod<RouteOptions<OAuthService>> = async (
  app,
  { services: oauth, http },
) => {
  type Callback = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  let callback: Callback | undefined;
  /** Hands the request to the authorization server (its Koa app), optionally at another path. */
  const handOver = (path?: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    if (path) request.raw.url = path;
    withoutProviderSession(request.raw);
    callback ??= (await oauth.provider()).callback() as Callback;
    await callback(request.raw, reply.raw);
  };

  // The authorization server's endpoints, exactly these paths (the web app serves /oauth/consent).
  await app.register(async (server) => {
    // The library reads and parses request bodies itself: leave the stream unread.
    server.removeAllContentTypeParsers();
    server.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const hidden = { schema: { hide: true } };

    server.route({
      method: ['GET', 'POST'],
      url: OAUTH_ROUTES.authorization,
      ...hidden,
      handler: (request, reply) => handOver(withDefaultScope(request.raw.url))(request, reply),
    });
    // Resuming after the consent screen needs the proof its answer handed to that browser.
    server.get(
      `${OAUTH_ROUTES.authorization}/:uid`,
      hidden,
      async (request: FastifyRequest, reply: FastifyReply) => {
        const { uid } = request.params as { uid: string };
        const { consent } = request.query as { consent?: string };
        if (!(await oauth.takeConsentProof(uid, consent))) {
          return reply.status(400).send({
            error:
              'This authorization was not answered in this browser: start again from the application',
            code: 'BAD_REQUEST',
          });
        }
        return handOver()(request, reply);
      },
    );
    // OPTIONS too: browser-based clients ask first, and the library answers CORS itself.
    const calls = ['POST', 'OPTIONS'] as const;
    const reads = ['GET', 'OPTIONS'] as const;
    server.route({ method: [...calls], url: OAUTH_ROUTES.token, ...hidden, handler: handOver() });
    server.route({
      method: [...calls],
      url: OAUTH_ROUTES.revocation,
      ...hidden,
      handler: handOver(),
    });
    server.route({ method: [...reads], url: OAUTH_ROUTES.jwks, ...hidden, handler: handOver() });
    // The library answers no preflight here: registration is for servers and native apps.
    server.post(
      OAUTH_ROUTES.registration,
      {
        ...hidden,
        config: {
          rateLimit: {
            max: REGISTRATIONS_PER_HOUR,
            timeWindow: '1 hour',
            keyGenerator: (request: FastifyRequest) => `oauth-register:${request.ip}`,
            allowList: () => false,
          },
        },
      },
      handOver(),
    );
    server.route({ method: [...reads], url: DISCOVERY_PATH, ...hidden, handler: handOver() });
    // RFC 8414's address for the same document.
    server.route({
      method: [...reads],
      url: '/.well-known/oauth-authorization-server',
      ...hidden,
      handler: handOver(DISCOVERY_PATH),
    });
  });

  // RFC 9728 at the root too (clients that probe it before the path-inserted one).
  app.get('/.well-known/oauth-protected-resource', { schema: { hide: true } }, (request, reply) => {
    void reply.header('access-control-allow-origin', '*');
    return reply.send(
      protectedResourceMetadata(mcpResourceUrl(http.config.PUBLIC_URL, request), oauth.issuer),
    );
  });

  // A space's own address (`/mcp/<slug>`) is a resource of its own: clients
  // connected to it are issued tokens for that space alone. Any valid slug
  // answers, so the metadata tells nobody which spaces exist.
  app.get(SPACE_PROTECTED_RESOURCE_METADATA_ROUTE, { schema: { hide: true } }, (request, reply) => {
    if (!mcpTargetOfRequest(request)?.space) throw notFound('Protected resource');
    void reply.header('access-control-allow-origin', '*');
    return reply.send(
      protectedResourceMetadata(mcpResourceUrl(http.config.PUBLIC_URL, request), oauth.issuer),
    );
  });

  // The consent screen and Connected apps: a person's own acts, a session token only.
  await app.register(async (scope) => {
    const api = scope.withTypeProvider<ZodTypeProvider>();
    api.addHook('onRequest', http.authenticateSession);
    // Connecting an app grants it every space: never a scoped credential's to give.
    api.addHook('onRequest', async (request) => requireFullAccess(authOf(request)));
    const schema = { tags: ['oauth'], security: [{ bearerAuth: [] }] };

    api.get(
      '/api/oauth/interactions/:uid',
      {
        schema: {
          ...schema,
          summary: 'What an application asks to be allowed (the consent screen)',
          params: oauthInteractionParams,
          response: { 200: oauthInteraction, ...errors },
        },
      },
      async (request) => oauth.interactionDetails(authOf(request), request.params.uid),
    );

    api.post(
      '/api/oauth/interactions/:uid',
      {
        schema: {
          ...schema,
          summary: 'Allow or deny the application; the browser then goes to redirectTo',
          params: oauthInteractionParams,
          body: oauthDecisionInput,
          response: { 200: oauthDecision, ...errors },
        },
      },
      async (request) =>
        oauth.decideInteraction(authOf(request), request.params.uid, request.body.decision),
    );

    api.get(
      '/api/oauth/grants',
      {
        schema: {
          ...schema,
          summary: 'The applications this person connected to this account',
          response: { 200: oauthGrantList, ...errors },
        },
      },
      async (request) => ({ grants: await oauth.listGrants(authOf(request)) }),
    );

    api.delete(
      '/api/oauth/grants/:id',
      {
        schema: {
          ...schema,
          summary: 'Disconnect an application: every token of it ends at once',
          params: idParams,
          response: { 200: okResponse, ...errors },
        },
      },
      async (request) => {
        await oauth.revokeGrant(authOf(request), request.params.id);
        return { success: true as const };
      },
    );
  });
};
