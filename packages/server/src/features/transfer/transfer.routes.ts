import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_SPACE_SLUG } from '@engram/shared';
import { errorResponses } from '../../http/error-responses.js';
import { spaceAuthOf } from '../../http/space-scope.js';
import { badRequest } from '../../lib/errors.js';
import type { RouteOptions } from '../feature.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import type { ExportGuard } from './export-guard.service.js';
import type { ImportSummary } from './transfer.service.js';

/** What the routes run on: the exports, one per account at a time, and the imports. */
export interface ExportServices {
  exportLossless(auth: SpaceAuth): AsyncIterable<string>;
  exportJsonl(auth: SpaceAuth): AsyncIterable<string>;
  exportMarkdown(auth: SpaceAuth): Promise<Uint8Array>;
  importJsonl(auth: SpaceAuth, text: string): Promise<ImportSummary>;
  importLossless(auth: SpaceAuth, value: unknown): Promise<ImportSummary>;
  importMarkdownZip(auth: SpaceAuth, bytes: Uint8Array): Promise<ImportSummary>;
  importMem0(auth: SpaceAuth, value: unknown): Promise<ImportSummary>;
  exports: ExportGuard;
}

export const IMPORT_FORMATS = ['markdown', 'mem0', 'jsonl', 'json'] as const;
export const EXPORT_FORMATS = ['json', 'jsonl', 'markdown'] as const;

const importQuery = z.object({
  format: z.enum(IMPORT_FORMATS, {
    error: `format must be one of ${IMPORT_FORMATS.join(', ')}`,
  }),
  space: z.string().optional(),
  create: z.string().optional(),
});
const exportQuery = z.object({
  format: z
    .enum(EXPORT_FORMATS, { error: `format must be one of ${EXPORT_FORMATS.join(', ')}` })
    .default('json'),
  space: z.string().optional(),
});
const importSummary = z.object({
  entities: z.number().int(),
  relations: z.number().int(),
  observations: z.number().int(),
  /** What the import left out and why: at most the first 1,000. */
  skipped: z.array(
    z.object({ file: z.string().optional(), name: z.string().optional(), reason: z.string() }),
  ),
});

/** The body types each import format takes (the app's JSON parser, and the ones added below). */
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'];
const TEXT_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines'];

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
        summary: "Download a space's graph (lossless JSON, the reference JSONL, or Markdown notes)",
        description:
          'The space the request names (X-Engram-Space or `?space=`; none: default), as an attachment `engram-export-<date>.<ext>` (`engram-export-<slug>-<date>.<ext>` for a space other than default). `?format=json` (default): `{"format":"engram","version":1,"exportedAt",…,"entities":[…],"relations":[…]}`; `jsonl`: the reference MCP memory server\'s JSONL; `markdown`: a zip of basic-memory notes, one per entity (docs/import-export.md). One export per account at a time: a second one while the first runs answers 429 with `Retry-After`.',
        querystring: exportQuery,
      },
    },
    async (request, reply) => {
      const auth = spaceAuthOf(request);
      const { format } = request.query;
      const end = await transfer.exports.begin(auth.accountId);
      const day = http.now().toISOString().slice(0, 10);
      const space = auth.space.slug === DEFAULT_SPACE_SLUG ? '' : `${auth.space.slug}-`;
      const name = `engram-export-${space}${day}`;
      reply.header('cache-control', 'no-store');
      if (format === 'markdown') {
        let zip: Uint8Array;
        try {
          zip = await transfer.exportMarkdown(auth);
        } finally {
          await end();
        }
        return reply
          .header('content-type', 'application/zip')
          .header('content-disposition', `attachment; filename="${name}.zip"`)
          .send(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
      }
      const chunks =
        format === 'jsonl' ? transfer.exportJsonl(auth) : transfer.exportLossless(auth);
      const body = Readable.from(endingBeforeLast(chunks, end), {
        objectMode: false,
        highWaterMark: STREAM_BUFFER_BYTES,
      });
      // Failed or dropped by the client: the export ends with its stream.
      body.once('close', () => void end());
      const [type, ext] =
        format === 'jsonl'
          ? ['application/x-ndjson; charset=utf-8', 'jsonl']
          : ['application/json; charset=utf-8', 'json'];
      return reply
        .header('content-type', type)
        .header('content-disposition', `attachment; filename="${name}.${ext}"`)
        .send(body);
    },
  );

  // The import's own body parsers (a zip as bytes, JSONL as text), scoped to it.
  await app.register(async (plugin) => {
    const scoped = plugin.withTypeProvider<ZodTypeProvider>();
    scoped.addContentTypeParser(ZIP_TYPES, { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    scoped.addContentTypeParser(TEXT_TYPES, { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );

    scoped.post(
      '/api/import',
      {
        config: { operation: { type: 'create', resource: 'graph' } },
        schema: {
          tags: ['export'],
          security: [{ bearerAuth: [] }],
          summary: 'Import memory into a space: Markdown notes, a mem0 export, JSONL or JSON',
          description:
            "Writes into the space the request names (X-Engram-Space or `?space=`); needs write access. `?format=markdown`: a zip of basic-memory notes or an Obsidian vault (`application/zip` or `application/octet-stream`; at most 10,000 files and 50 MB uncompressed); `mem0`: mem0's `get_all` or export JSON; `jsonl`: the reference memory server's JSONL (`text/plain` or `application/x-ndjson`); `json`: Engram's lossless export. Within the request body limit (413 past it). Idempotent: names, observation texts and relations the space has are skipped. The whole input is checked before anything is written (400 naming the failing field); then it is written in batches, and a failure midway keeps the batches written and says so. Answers what was written (counts). docs/import-export.md has the mapping rules.",
          querystring: importQuery,
          response: {
            200: importSummary,
            ...errorResponses(
              'VALIDATION_ERROR',
              'UNAUTHORIZED',
              'PLAN_LIMIT_REACHED',
              'FORBIDDEN',
              'NOT_FOUND',
              'PAYLOAD_TOO_LARGE',
              'UNSUPPORTED_MEDIA_TYPE',
            ),
          },
        },
      },
      async (request) => {
        const auth = spaceAuthOf(request);
        const body: unknown = request.body;
        switch (request.query.format) {
          case 'markdown':
            if (!Buffer.isBuffer(body)) {
              throw badRequest(
                'body',
                'format=markdown takes a zip (Content-Type: application/zip)',
              );
            }
            return transfer.importMarkdownZip(auth, new Uint8Array(body));
          case 'jsonl': {
            const text =
              typeof body === 'string'
                ? body
                : Buffer.isBuffer(body)
                  ? body.toString('utf8')
                  : undefined;
            if (text === undefined) {
              throw badRequest(
                'body',
                'format=jsonl takes text (Content-Type: text/plain or application/x-ndjson)',
              );
            }
            return transfer.importJsonl(auth, text);
          }
          case 'mem0':
          case 'json': {
            const value = jsonOf(body);
            return request.query.format === 'mem0'
              ? transfer.importMem0(auth, value)
              : transfer.importLossless(auth, value);
          }
        }
      },
    );
  });
};

/** A JSON body: parsed by the app's parser, or sent as text or bytes. */
function jsonOf(body: unknown): unknown {
  if (body === undefined || body === null) {
    throw badRequest(
      'body',
      'Give the file to import as the body (Content-Type: application/json)',
    );
  }
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
  try {
    return JSON.parse(body.toString()) as unknown;
  } catch {
    throw badRequest('body', 'The body is not valid JSON');
  }
}
