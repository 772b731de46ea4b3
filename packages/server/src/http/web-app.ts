import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../lib/errors.js';

/** Paths the server owns; everything else that is a GET for HTML is a client route of the SPA. */
const SERVER_PATHS = /^\/(api|auth|mcp|ws|docs|healthz)(\/|$|\?)/;

/**
 * Serves the built web app with history fallback, when it has been built.
 * Hashed assets are cached for a year; index.html is always revalidated.
 */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const hasWebApp = existsSync(join(distDir, 'index.html'));
  if (hasWebApp) {
    await app.register(fastifyStatic, {
      root: distDir,
      wildcard: false,
      setHeaders(reply, path) {
        reply.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const wantsPage =
      hasWebApp &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      !SERVER_PATHS.test(request.url) &&
      (request.headers.accept ?? '').includes('text/html');
    if (wantsPage) {
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    }
    const path = request.url.split('?')[0];
    return reply.status(404).send(notFound(`Route ${request.method} ${path}`).toBody());
  });
}
