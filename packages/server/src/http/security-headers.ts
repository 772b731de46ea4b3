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

/**
 * The style elements /docs (Swagger UI) creates, by hash. Its top bar draws
 * Swagger's logo as an SVG holding one <style> element,
 * `.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}`
 * (swagger-ui-dist's standalone preset), which the plugin's own policy
 * blocks with a console error on every visit. security-headers.test.ts
 * hashes the installed preset's style elements again, so an upgrade that
 * changes them fails there.
 */
export const DOCS_INLINE_STYLES = ["'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"];

/** /docs's policy (@fastify/swagger-ui's `transformStaticCSP`): its own, plus those styles. */
export function docsContentSecurityPolicy(header: string): string {
  return header.replace(/style-src[^;]*/, (directive) =>
    [directive.trim(), ...DOCS_INLINE_STYLES].join(' '),
  );
}
