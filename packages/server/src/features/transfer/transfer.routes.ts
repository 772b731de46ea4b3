import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authOf } from '../../http/authenticate.js';
import type { RouteDeps } from '../../route-deps.js';
import * as transfer from '../graph/transfer.service.js';

/**
 * GET /api/export: the account's whole graph as Engram's lossless JSON (ids,
 * metadata, observation metadata and dates) — the same document as
 * `engram export --format json`, which `engram import` reads back. Streamed
 * page by page, so a large graph is never held in memory at once.
 */
export const transferRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.addHook('onRequest', deps.authenticate);

  app.get(
    '/api/export',
    {
      config: { operation: { type: 'query', resource: 'graph' } },
      schema: {
        tags: ['export'],
        security: [{ bearerAuth: [] }],
        summary: "Download the account's graph as lossless JSON",
        description:
          'An attachment `engram-export-<date>.json`: `{"format":"engram","version":1,"exportedAt",…,"entities":[…],"relations":[…]}`.',
      },
    },
    async (request, reply) => {
      const day = deps.now().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="engram-export-${day}.json"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(transfer.exportLossless(deps.graph, authOf(request))));
    },
  );
};
