import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import * as transfer from '../features/transfer/lossless.js';
import type { AuthContext } from '../lib/auth-context.js';
import { createRuntime } from '../runtime.js';
import {
  as,
  createTestApp,
  setPlan,
  signUp,
  testConfig,
  type TestApp,
  inDefaultSpace,
} from '../test/harness.js';

// Finding 2 of issue 31: one export froze the whole server (quadratic, every
// relation held to the end, one huge statement). Exports now stream in short
// keyset pages, one per account at a time, and other requests run between
// their pages.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function account(plan?: string) {
  const { token, user } = await signUp(t.app);
  if (plan) await setPlan(t, user.id, plan);
  const auth = inDefaultSpace((await t.runtime.authenticate(user.apiKey)) as AuthContext);
  return { req: as(t.app, token), auth, token };
}

type Document = transfer.LosslessDocument;

// The two tests that write and stream a graph of 60,000 observations assert
// order and content, not speed; on a busy CI machine one of them has taken
// longer than the default 30 s.
const BIG_GRAPH_TIMEOUT = 120_000;

/**
 * A lossless document with ids, dates and metadata chosen here: `shape`
 * gives each entity's number of observations (and their size), and
 * `relations` relations in creation order. Dates increase by a millisecond
 * per row, so creation order is the document's order.
 */
function document(
  shape: { observations: number; size?: number }[],
  relations: number,
): Omit<Document, 'entities'> & { entities: Document['entities'] } {
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const at = () => new Date(clock++).toISOString();
  const entities = shape.map(({ observations, size = 0 }, index) => ({
    id: randomUUID(),
    name: `entity ${index}`,
    type: index % 3 === 0 ? 'person' : 'thing',
    metadata: index % 2 === 0 ? { rank: index } : {},
    createdAt: at(),
    updatedAt: at(),
    observations: Array.from({ length: observations }, (_, n) => ({
      id: randomUUID(),
      content: `${index}.${n} ${'x'.repeat(size)}`.trim(),
      ...(n % 5 === 0 ? { metadata: { n } } : {}),
      createdAt: at(),
    })),
  }));
  return {
    format: 'engram',
    version: 1,
    entities,
    relations: Array.from({ length: relations }, (_, n) => ({
      id: randomUUID(),
      // Starting at entities in their order, as the old export listed them page by page.
      fromEntityId: entities[Math.floor((n * entities.length) / relations)]!.id,
      toEntityId:
        entities[(Math.floor((n * entities.length) / relations) + 1 + (n % 7)) % entities.length]!
          .id,
      type: `type ${n % 4}`,
      createdAt: at(),
    })),
  };
}

/** The text the export wrote before streaming: one JSON.stringify of the document, keys in this order. */
function oldExportText(source: Document, exportedAt: string): string {
  return `{"format":"engram","version":1,"exportedAt":${JSON.stringify(exportedAt)},"entities":${JSON.stringify(source.entities)},"relations":${JSON.stringify(source.relations)}}\n`;
}

async function readAll(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('GET /api/export streams', () => {
  it('answers a second concurrent export of the same account 429, on any node, and lets the next one run', async () => {
    const { req, auth, token } = await account();
    await t.runtime.transfer.importLossless(
      auth,
      document(
        Array.from({ length: 1_000 }, () => ({ observations: 20 })),
        500,
      ),
    );
    const other = await account();

    // The first export is running: its client has read only the first bytes,
    // so the export waits for it, mid-graph.
    const first = await req({ method: 'GET', url: '/api/export', payloadAsStream: true });
    expect(first.statusCode).toBe(200);

    const second = await req({ method: 'GET', url: '/api/export' });
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe('10');
    expect(second.json()).toEqual({
      error:
        'An export of this account is already running; one runs at a time. Try again when it has finished.',
      code: 'RATE_LIMITED',
    });

    // Another node on the same database refuses it too (the lease is shared).
    const config = testConfig();
    const runtime = await createRuntime(config, { database: t.database });
    const node = await buildApp({ config, runtime });
    try {
      const elsewhere = await as(
        node,
        token,
      )({
        method: 'GET',
        url: '/api/export',
      });
      expect(elsewhere.statusCode).toBe(429);
    } finally {
      await node.close();
      await runtime.close();
    }

    // Another account is not held back.
    expect((await other.req({ method: 'GET', url: '/api/export' })).statusCode).toBe(200);

    // The first one completes whole; then the account may export again.
    const text = await readAll(first.stream());
    expect(JSON.parse(text).entities).toHaveLength(1_000);
    const again = await req({ method: 'GET', url: '/api/export' });
    expect(again.statusCode).toBe(200);
    expect(again.body.length).toBe(text.length);
  });

  it(
    'writes a graph with many observations per entity completely, byte for byte as before, and reads back',
    async () => {
      const { req, auth } = await account('starter');
      // 1,200 entities (two pages): a few with thousands of observations (read in
      // several statements), one with 3.6 MB of text (cut by bytes), many with none.
      const shape = Array.from({ length: 1_200 }, (_, index) =>
        index % 400 === 7
          ? { observations: 4_500 }
          : index === 600
            ? { observations: 400, size: 9_000 }
            : { observations: index % 2 === 0 ? 0 : 3 },
      );
      const source = document(shape, 2_500);
      await t.runtime.transfer.importLossless(auth, source);
      // One written through REST: dates to the microsecond, read as the API reads them.
      const created = await req({
        method: 'POST',
        url: '/api/entities',
        payload: {
          name: 'made by hand',
          type: 'note',
          metadata: { a: 1 },
          observations: ['one', { content: 'two', metadata: { b: [true] } }, 'three'],
        },
      });
      const read = (await req({ method: 'GET', url: `/api/entities/${created.json().id}` })).json();
      source.entities.push({
        id: read.id,
        name: read.name,
        type: read.type,
        metadata: read.metadata,
        createdAt: read.createdAt,
        updatedAt: read.updatedAt,
        observations: read.observations.map(
          (observation: Document['entities'][number]['observations'][number]) => ({
            id: observation.id,
            content: observation.content,
            ...(observation.metadata ? { metadata: observation.metadata } : {}),
            createdAt: observation.createdAt,
          }),
        ),
      });

      const response = await req({ method: 'GET', url: '/api/export' });
      expect(response.statusCode).toBe(200);
      const exported = response.json<Document & { exportedAt: string }>();
      expect(response.body).toBe(oldExportText(source, exported.exportedAt));

      // The reference JSONL: the same entities and relations, by name.
      let jsonl = '';
      for await (const chunk of t.runtime.transfer.exportJsonl(auth)) jsonl += chunk;
      const names = new Map(source.entities.map((entity) => [entity.id, entity.name]));
      expect(jsonl).toBe(
        [
          ...source.entities.map((entity) =>
            JSON.stringify({
              type: 'entity',
              name: entity.name,
              entityType: entity.type,
              observations: entity.observations.map((observation) => observation.content),
            }),
          ),
          ...source.relations.map((relation) =>
            JSON.stringify({
              type: 'relation',
              from: names.get(relation.fromEntityId),
              to: names.get(relation.toEntityId),
              relationType: relation.type,
            }),
          ),
        ].join('\n') + '\n',
      );

      // Read back as the CLI reads a file (a stream, cut anywhere) into another
      // account, it exports the same graph.
      const copy = await account('starter');
      const chunks = function* () {
        for (let start = 0; start < response.body.length; start += 4_093) {
          yield response.body.slice(start, start + 4_093);
        }
      };
      expect(await transfer.formatOf(chunks)).toBe('lossless');
      expect(await t.runtime.transfer.importFrom(copy.auth, chunks)).toMatchObject({
        entities: 1_201,
        relations: 2_500,
      });
      const again = (await copy.req({ method: 'GET', url: '/api/export' })).json<Document>();
      expect(again.entities).toEqual(exported.entities);
      expect(again.relations).toEqual(exported.relations);
    },
    BIG_GRAPH_TIMEOUT,
  );

  it(
    'answers a /healthz sent while a big export runs within the export’s next pages, not after it',
    async () => {
      const { req, auth } = await account();
      await t.runtime.transfer.importLossless(
        auth,
        document(
          Array.from({ length: 1_000 }, () => ({ observations: 60 })),
          1_000,
        ),
      );

      const exporting = await req({ method: 'GET', url: '/api/export', payloadAsStream: true });
      let text = '';
      // How much of the export had arrived when /healthz answered.
      let answeredAt: number | undefined;
      let healthz: Promise<number> | undefined;
      // The client reads the export as fast as it comes; once the first entity
      // has arrived, a health check is sent.
      for await (const chunk of exporting.stream()) {
        text += String(chunk);
        if (!healthz && text.includes('"observations":[')) {
          healthz = t.app.inject({ method: 'GET', url: '/healthz' }).then((response) => {
            answeredAt = text.length;
            return response.statusCode;
          });
        }
      }
      const finished = text.length;
      expect(await healthz).toBe(200);
      expect(JSON.parse(text).entities).toHaveLength(1_000);
      // Ordering, not timing: the check ran between the export's pages, while
      // most of the document was still to come. (Before, it waited for the
      // export's one huge read and its quadratic pass: about half the document.)
      expect(answeredAt).toBeLessThan(finished / 4);
    },
    BIG_GRAPH_TIMEOUT,
  );
});

describe('an import read as a stream (engram import)', () => {
  it('reads an export however it is laid out, and writes nothing from a broken one', async () => {
    const { auth } = await account();
    const source = document(
      Array.from({ length: 5 }, () => ({ observations: 2 })),
      3,
    );
    source.entities[0]!.name = 'tricky ], { "quoted" \\ name';
    source.entities[1]!.observations[0]!.content = '[1, 2], {"a": "}"} \\"';
    // Pretty-printed, relations before entities, cut into pieces of 7 characters.
    const { relations, ...rest } = source;
    const text = JSON.stringify({ relations, ...rest }, null, 2);
    const pieces = () =>
      Array.from({ length: Math.ceil(text.length / 7) }, (_, i) => text.slice(i * 7, i * 7 + 7));

    const broken = await account();
    await expect(
      t.runtime.transfer.importFrom(broken.auth, () => [text.slice(0, -40)]),
    ).rejects.toMatchObject({ status: 400, message: 'Engram export: The JSON object ends early' });
    const invalid = text.replace('"type": "type 1"', '"type": ""');
    await expect(t.runtime.transfer.importFrom(broken.auth, () => [invalid])).rejects.toMatchObject(
      {
        status: 400,
        message: expect.stringMatching(/^Engram export \(relations\.1\.type\)/),
      },
    );
    let written = '';
    for await (const chunk of t.runtime.transfer.exportLossless(broken.auth)) written += chunk;
    expect(JSON.parse(written)).toMatchObject({ entities: [], relations: [] });

    expect(await t.runtime.transfer.importFrom(auth, pieces)).toMatchObject({
      entities: 5,
      relations: 3,
    });
    let exported = '';
    for await (const chunk of t.runtime.transfer.exportLossless(auth)) exported += chunk;
    expect(JSON.parse(exported)).toMatchObject({
      entities: source.entities,
      relations: source.relations,
    });
  });
});
