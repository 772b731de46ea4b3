import { fileURLToPath } from 'node:url';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { ping } from './db/connection.js';
import { billingContentSources } from './features/billing/index.js';
import type { RouteOptions } from './features/feature.js';
import { registerMetering } from './features/usage/index.js';
import { authenticateWith, sessionOnlyWith } from './http/authenticate.js';
import type { HttpContext } from './http/context.js';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { loggerOptions, OneLinePerRequest } from './http/logging.js';
import { accountRateLimitOf, apiRateLimit, registerAccountRateLimit } from './http/rate-limits.js';
import { docsContentSecurityPolicy, securityHeaders } from './http/security-headers.js';
import { checkOriginWith, originPolicy } from './http/origin.js';
import { spaceScopeWith } from './http/space-scope.js';
import { registerWebApp } from './http/web-app.js';
import { createRuntime, FEATURES, type Runtime } from './runtime.js';
import { mcpRoutes } from './mcp/http.js';
import { realtimeRoutes } from './realtime/gateway.js';

export interface BuildOptions {
  config: Config;
  /** Services already running (tests keep a handle on them); otherwise created from config and closed with the app. */
  runtime?: Runtime;
  /** Where log lines go (standard output when absent). */
  logDestination?: NodeJS.WritableStream;
}

const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** The whole server as one readable list of plugins and routes. */
export async function buildApp({
  config,
  runtime: given,
  logDestination,
}: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config, logDestination),
    logController: new OneLinePerRequest(),
    // Behind a load balancer the client address comes from X-Forwarded-For,
    // counted from the right: TRUST_PROXY hops, never the client's own entries.
    trustProxy:
      config.TRUST_PROXY > 0 ? (_address: string, hop: number) => hop < config.TRUST_PROXY : false,
    bodyLimit: 2 * 1024 * 1024,
    frameworkErrors,
    // Query strings like ?types=a,b stay strings; zod schemas parse them.
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  const runtime =
    given ??
    (await createRuntime(config, {
      onError: (error, message) => app.log.error({ err: error }, message),
      onWarn: (fields, message) => app.log.warn(fields, message),
    }));
  if (!given) app.addHook('onClose', () => runtime.close());
  const handle = runtime.database;
  // ioredis is loaded only when Redis is configured: a server without it never holds the library.
  const rateLimitStore = config.REDIS_URL
    ? new (await import('ioredis')).Redis(config.REDIS_URL, {
        connectTimeout: 2_000,
        maxRetriesPerRequest: 1,
      })
    : undefined;
  if (rateLimitStore) app.addHook('onClose', async () => void (await rateLimitStore.quit()));

  app.decorateRequest('auth', null);
  app.decorateRequest('spaceAuth', null);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  // Clients that send `Content-Type: application/json` on every request (the
  // web app: docs/product.md, Calls) also send it on DELETE without a body: an
  // empty body is no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body.toString(), done);
  });

  app.addHook('onRequest', (_request, _reply, done) => {
    runtime.noteRequest();
    done();
  });
  // Stripe's card form (only when Stripe is configured) loads its script and frames from Stripe.
  app.addHook('onRequest', securityHeaders(billingContentSources(config)));
  await app.register(rateLimit, apiRateLimit(config.API_RATE_LIMIT_PER_MINUTE, rateLimitStore));
  registerAccountRateLimit(app, accountRateLimitOf(config));
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Engram API',
        description: 'Persistent knowledge-graph memory for AI agents.',
        version: '0.1.0',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'Session token or API key',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: docsContentSecurityPolicy,
  });

  const http: HttpContext = {
    config,
    now: runtime.now,
    authenticate: authenticateWith(runtime.authenticate),
    resolveCredential: runtime.authenticate,
    authenticateSession: sessionOnlyWith(runtime.authenticate),
    checkOrigin: checkOriginWith(originPolicy(config)),
    resolveSpace: spaceScopeWith(runtime.spaces.resolveSpace),
    resolveNamedSpace: spaceScopeWith(runtime.spaces.resolveSpace, { optional: true }),
  };

  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await ping(handle.db);
      return { status: 'ok', database: handle.kind };
    } catch (error) {
      app.log.error({ err: error }, 'health check failed');
      return reply.status(503).send({ error: 'Database unavailable', code: 'SERVICE_UNAVAILABLE' });
    }
  });
  registerMetering(app, runtime.usage);
  for (const feature of FEATURES) {
    const routes = feature.routes as FastifyPluginAsync<RouteOptions<unknown>> | undefined;
    if (routes) await app.register(routes, { services: runtime[feature.name], http });
  }
  await app.register(mcpRoutes, { services: runtime, http });
  await app.register(realtimeRoutes, { services: runtime, http });
  await registerWebApp(app, config.WEB_DIST_DIR ?? DEFAULT_WEB_DIST);

  return app;
}
