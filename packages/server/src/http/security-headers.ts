import type { onRequestHookHandler } from 'fastify';
import helmet from 'helmet';

/** Origins a page may load from beyond its own (Stripe's card form, when configured). */
export interface ContentSources {
  scripts: string[];
  frames: string[];
  connect: string[];
}

/**
 * Helmet's headers (Content-Security-Policy, HSTS, nosniff, frame options…)
 * on every response. The middleware is built once here: @fastify/helmet built
 * it again, parsing the CSP directives, on every request (decision 012).
 */
export function securityHeaders(sources: ContentSources): onRequestHookHandler {
  const apply = helmet({
    contentSecurityPolicy: {
      directives: {
        // Swagger UI at /docs and the graph canvas need inline styles and data: images.
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'connect-src': ["'self'", 'ws:', 'wss:', ...sources.connect],
        'script-src': ["'self'", ...sources.scripts],
        'frame-src': ["'self'", ...sources.frames],
      },
    },
  });
  return (request, reply, done) => apply(request.raw, reply.raw, (error) => done(error as Error));
}
