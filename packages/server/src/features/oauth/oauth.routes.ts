import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  idParams,
  okResponse,
  oauthDecision,
  oauthDecisionInput,
  oauthGrantList,
  oauthInteraction,
  oauthInteractionApp,
  oauthInteractionParams,
} from '@engram/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { authOf } from '../../http/authenticate.js';
import { perAddressLimit } from '../../http/rate-limits.js';
import { requireFullAccess } from '../../lib/space-access.js';
import { notFound } from '../../lib/errors.js';
import {
  mcpResourceUrl,
  mcpTargetOfRequest,
  protectedResourceMetadata,
  SPACE_PROTECTED_RESOURCE_METADATA_ROUTE,
} from '../../lib/protected-resource.js';
import type { RouteOptions } from '../feature.js';
import { DISCOVERY_PATH, errorPageUrl, OAUTH_ROUTES } from './oauth-provider.js';
import type { OAuthService } from './oauth.service.js';
import { MEMORY_SCOPES } from './scopes.js';
import { errorResponses } from '../../http/error-responses.js';

const errors = errorResponses('VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND');
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

/** The longest value (or name) an authorization request may carry (docs/security.md, OAuth). */
export const AUTHORIZE_PARAM_MAX = 2_048;

/**
 * Why an authorization request is refused before the library sees it, as an
 * OAuth error code, or undefined: a parameter over AUTHORIZE_PARAM_MAX (each
 * request stores its parameters until it expires), or the `openid` scope,
 * which Engram never grants (no ID tokens, decision 022) and which would
 * otherwise send the browser back to the consent screen again and again.
 */
function refusedAuthorization(url: string | undefined): string | undefined {
  const params = new URL(url ?? '/', 'http://engram.invalid').searchParams;
  for (const [name, value] of params) {
    if (name.length > AUTHORIZE_PARAM_MAX || value.length > AUTHORIZE_PARAM_MAX) {
      return 'invalid_request';
    }
  }
  if (params.getAll('scope').some((scope) => scope.split(' ').includes('openid'))) {
    return 'invalid_scope';
  }
  return undefined;
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
  /**
   * Hands the request to the authorization server (its Koa app), optionally
   * at another path. The library builds every address it writes (metadata
   * endpoints, where the browser resumes) from the request's URL: it is
   * given the URL at the issuer (an absolute-form request target), so no
   * Host or X-Forwarded-Host header ever reaches an answer.
   */
  const handOver = (path?: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const received = request.raw.url;
    request.raw.url = `${oauth.issuer}${path ?? received ?? '/'}`;
    withoutProviderSession(request.raw);
    try {
      callback ??= (await oauth.provider()).callback() as Callback;
      await callback(request.raw, reply.raw);
    } finally {
      request.raw.url = received; // the request log shows what was asked
    }
  };
  /** Sends a browser to Engram's error page (docs/connect.md): the authorization cannot go on. */
  const toErrorPage = (reply: FastifyReply, code: string) =>
    reply.header('cache-control', 'no-store').redirect(errorPageUrl(code), 303);
  /** OAUTH_RATE_LIMIT_PER_MINUTE per client address on each of authorize, token and revoke. */
  const limited = { rateLimit: perAddressLimit(http.config.OAUTH_RATE_LIMIT_PER_MINUTE) };

  // The authorization server's endpoints, exactly these paths (the web app serves /oauth/consent).
  await app.register(async (server) => {
    // The library reads and parses request bodies itself: leave the stream unread.
    server.removeAllContentTypeParsers();
    server.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const hidden = { schema: { hide: true } };

    // GET only: the library serves the authorization endpoint on GET (OAuth 2.1's must).
    server.get(
      OAUTH_ROUTES.authorization,
      { ...hidden, config: limited },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const refused = refusedAuthorization(request.raw.url);
        if (refused) return toErrorPage(reply, refused);
        return handOver(withDefaultScope(request.raw.url))(request, reply);
      },
    );
    // Resuming after the consent screen needs the proof its answer handed to that browser.
    server.get(
      `${OAUTH_ROUTES.authorization}/:uid`,
      { ...hidden, config: limited },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const { uid } = request.params as { uid: string };
        const { consent } = request.query as { consent?: string };
        if (!(await oauth.takeConsentProof(uid, consent))) {
          return toErrorPage(reply, 'not_answered_here');
        }
        return handOver()(request, reply);
      },
    );
    // OPTIONS too: browser-based clients ask first, and the library answers CORS itself.
    const calls = ['POST', 'OPTIONS'] as const;
    const reads = ['GET', 'OPTIONS'] as const;
    server.route({
      method: [...calls],
      url: OAUTH_ROUTES.token,
      ...hidden,
      config: limited,
      handler: handOver(),
    });
    server.route({
      method: [...calls],
      url: OAUTH_ROUTES.revocation,
      ...hidden,
      config: limited,
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
  // Built from PUBLIC_URL or the banner's origin (mcpResourceUrl), never kept by a cache.
  app.get('/.well-known/oauth-protected-resource', { schema: { hide: true } }, (request, reply) => {
    void reply.header('access-control-allow-origin', '*').header('cache-control', 'no-store');
    return reply.send(
      protectedResourceMetadata(mcpResourceUrl(http.config.PUBLIC_URL, request), oauth.issuer),
    );
  });

  // A space's own address (`/mcp/<slug>`) is a resource of its own: clients
  // connected to it are issued tokens for that space alone. Any valid slug
  // answers, so the metadata tells nobody which spaces exist.
  app.get(SPACE_PROTECTED_RESOURCE_METADATA_ROUTE, { schema: { hide: true } }, (request, reply) => {
    if (!mcpTargetOfRequest(request)?.space) throw notFound('Protected resource');
    void reply.header('access-control-allow-origin', '*').header('cache-control', 'no-store');
    return reply.send(
      protectedResourceMetadata(mcpResourceUrl(http.config.PUBLIC_URL, request), oauth.issuer),
    );
  });

  // The sign-in page of an authorization names the app asking, before anyone
  // signs in: the uid is a long random value, and the answer holds nothing of an account.
  app.get(
    '/api/oauth/interactions/:uid/app',
    {
      config: limited,
      schema: {
        tags: ['oauth'],
        summary: 'Which application a pending authorization is for (the sign-in page)',
        params: oauthInteractionParams,
        response: { 200: oauthInteractionApp, ...errors },
      },
    },
    async (request) => oauth.interactionApp(request.params.uid),
  );

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
