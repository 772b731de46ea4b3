import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DEFAULT_SPACE_SLUG } from '@engram/shared';
import { spaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import type { ExportGuard } from './export-guard.service.js';

/** What the export route runs on: the lossless export, and one export per account at a time. */
export interface ExportServices {
  exportLossless(auth: SpaceAuth): AsyncIterable<string>;
  exports: ExportGuard;
}

/** Bytes of the export held ahead of a client that reads slowly (besides the page being read). */
const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * The chunks, ending the export before the last one is sent: a client that
 * asks again as soon as it has the whole document is not refused, on any node.
 */
async function* endingBeforeLast(
  chunks: AsyncIterable<string>,
  end: () => Promise<void>,
): AsyncGenerator<string> {
  let held: string | undefined;
  for await (const chunk of chunks) {
    if (held !== undefined) yield held;
    held = chunk;
  }
  await end();
  if (held !== undefined) yield held;
}

/**
 * GET /api/export: the account's whole graph as Engram's lossless JSON (ids,
 * metadata, observation metadata and dates) — the same document as
 * `engram export --format json`, which `engram import` reads back. Streamed
 * a page at a time as the client reads it (a slow reader holds the export,
 * not memory), one export per account at a time (429 for a second).
 */
export const transferRoutes: FastifyPluginAsyncZod<RouteOptions<ExportServices>> = async (
  app,
  { services: transfer, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveSpace);

  app.get(
    '/api/export',
    {
      config: { operation: { type: 'query', resource: 'graph' } },
      schema: {
        tags: ['export'],
        security: [{ bearerAuth: [] }],
        summary: "Download a space's graph as lossless JSON",
        description:
          'The space the request names (X-Engram-Space or `?space=`; none: default), as an attachment `engram-export-<date>.json` (`engram-export-<slug>-<date>.json` for a space other than default): `{"format":"engram","version":1,"exportedAt",…,"entities":[…],"relations":[…]}`. One export per account at a time: a second one while the first runs answers 429 with `Retry-After`.',
      },
    },
    async (request, reply) => {
      const auth = spaceAuthOf(request);
      const end = await transfer.exports.begin(auth.accountId);
      const body = Readable.from(endingBeforeLast(transfer.exportLossless(auth), end), {
        objectMode: false,
        highWaterMark: STREAM_BUFFER_BYTES,
      });
      // Failed or dropped by the client: the export ends with its stream.
      body.once('close', () => void end());
      const day = http.now().toISOString().slice(0, 10);
      const space = auth.space.slug === DEFAULT_SPACE_SLUG ? '' : `${auth.space.slug}-`;
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="engram-export-${space}${day}.json"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
};
