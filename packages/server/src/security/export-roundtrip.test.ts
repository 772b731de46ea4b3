import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, setPlan, signUp, type TestApp } from '../test/harness.js';

// The lossless JSON export keeps every field a person or agent wrote: export
// a generated graph, import it into an empty account, export again, and the
// two documents are equal once what the server chooses (`exportedAt`, ids,
// `createdAt`, `updatedAt`) is set aside. The Markdown zip keeps what a note
// carries (names, types, aliases, metadata, observations and relations,
// without dates). A property over generated graphs, so no one example
// decides it.

let t: TestApp;

beforeAll(async () => {
  // Two fresh accounts per generated graph.
  t = await createTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '10000' });
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function account(): Promise<Call> {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, 'pro');
  return as(t.app, token);
}

interface Doc {
  entities: {
    id: string;
    name: string;
    type: string;
    metadata: Record<string, unknown>;
    aliases?: string[];
    createdAt: string;
    updatedAt: string;
    observations: {
      id: string;
      content: string;
      metadata?: Record<string, unknown>;
      validFrom?: string;
      validTo?: string;
      createdAt: string;
    }[];
  }[];
  relations: {
    id: string;
    fromEntityId: string;
    toEntityId: string;
    type: string;
    validFrom?: string;
    validTo?: string;
    createdAt: string;
  }[];
}

// ── generated graphs ────────────────────────────────────────────────────────

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,9}$/);
const words = (max: number) =>
  fc.array(word, { minLength: 1, maxLength: max }).map((list) => list.join(' '));
/** Texts as people write them: words, punctuation, accents, an emoji. */
const prose = fc
  .array(fc.oneof(word, fc.constantFrom('café', 'naïve', '—', '🙂', '"quoted"', 'a\\b', '1,5')), {
    minLength: 1,
    maxLength: 12,
  })
  .map((list) => list.join(' '));
const jsonLeaf = fc.oneof(
  prose,
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.boolean(),
  fc.constant(null),
);
const metadata = fc.dictionary(word, fc.oneof(jsonLeaf, fc.array(jsonLeaf, { maxLength: 3 })), {
  maxKeys: 4,
});
const instant = fc
  .integer({ min: Date.UTC(1950, 0, 1), max: Date.UTC(2090, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
/** When a fact held: none, one end, or both in order. */
const dates = fc
  .tuple(fc.option(instant, { nil: undefined }), fc.option(instant, { nil: undefined }))
  .map(([a, b]) => {
    const [from, to] = a && b && a > b ? [b, a] : [a, b];
    return { ...(from ? { validFrom: from } : {}), ...(to ? { validTo: to } : {}) };
  });

const graph = fc
  .record({
    entities: fc.array(
      fc.record({
        name: words(4),
        type: fc.constantFrom('person', 'project', 'place', 'tool', 'idea'),
        metadata,
        aliases: fc.array(words(3), { maxLength: 3 }),
        observations: fc.array(
          fc.record({
            content: prose,
            metadata: fc.option(metadata, { nil: undefined }),
            dates,
          }),
          { maxLength: 5 },
        ),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    relations: fc.array(
      fc.record({
        from: fc.nat(),
        to: fc.nat(),
        type: fc.constantFrom('knows', 'works_on', 'uses', 'part_of'),
        dates,
      }),
      { maxLength: 10 },
    ),
  })
  .map(({ entities, relations }): Doc => {
    // What the server would refuse or fold is kept out: repeated names,
    // an alias another entity goes by, observations equal but for case.
    const taken = new Set<string>();
    const at = new Date().toISOString();
    const kept = entities.flatMap((entity, index) => {
      const name = `${entity.name} ${index}`;
      if (taken.has(name)) return [];
      taken.add(name);
      return [{ ...entity, name }];
    });
    const shaped = kept.map((entity) => {
      const aliases = entity.aliases.filter((alias) => !taken.has(alias) && !taken.has(alias));
      for (const alias of aliases) taken.add(alias);
      const seen = new Set<string>();
      return {
        id: randomUUID(),
        name: entity.name,
        type: entity.type,
        metadata: entity.metadata,
        ...(aliases.length > 0 ? { aliases } : {}),
        createdAt: at,
        updatedAt: at,
        observations: entity.observations
          .filter(({ content }) => {
            const key = content.toLowerCase();
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          })
          .map(({ content, metadata: meta, dates: held }) => ({
            id: randomUUID(),
            content,
            ...(meta ? { metadata: meta } : {}),
            ...held,
            createdAt: at,
          })),
      };
    });
    const triples = new Set<string>();
    const links = relations.flatMap(({ from, to, type, dates: held }) => {
      const a = shaped[from % shaped.length]!;
      const b = shaped[to % shaped.length]!;
      const triple = `${a.id} ${b.id} ${type}`;
      if (a === b || triples.has(triple)) return [];
      triples.add(triple);
      return [
        { id: randomUUID(), fromEntityId: a.id, toEntityId: b.id, type, ...held, createdAt: at },
      ];
    });
    return { entities: shaped, relations: links };
  });

// ── the round trip ──────────────────────────────────────────────────────────

async function importDocument(call: Call, format: 'json' | 'markdown', body: Buffer | Doc) {
  const response = await call({
    method: 'POST',
    url: `/api/import?format=${format}`,
    headers: { 'content-type': format === 'json' ? 'application/json' : 'application/zip' },
    payload: format === 'json' ? JSON.stringify({ format: 'engram', version: 1, ...body }) : body,
  });
  expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
}

async function exportJson(call: Call): Promise<Doc> {
  const response = await call({ method: 'GET', url: '/api/export?format=json' });
  expect(response.statusCode).toBe(200);
  return response.json<Doc>();
}

/** What a person or agent wrote, by name: ids and the server's own dates set aside. */
function written(document: Doc, { dated }: { dated: boolean }) {
  const nameOf = new Map(document.entities.map((entity) => [entity.id, entity.name]));
  const held = (fact: { validFrom?: string; validTo?: string }) =>
    dated ? { validFrom: fact.validFrom ?? null, validTo: fact.validTo ?? null } : {};
  return {
    entities: document.entities
      .map((entity) => ({
        name: entity.name,
        type: entity.type,
        metadata: entity.metadata,
        aliases: [...(entity.aliases ?? [])].sort(),
        observations: entity.observations.map((observation) => ({
          content: observation.content,
          metadata: observation.metadata ?? null,
          ...held(observation),
        })),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    relations: document.relations
      .map((relation) => ({
        from: nameOf.get(relation.fromEntityId),
        to: nameOf.get(relation.toEntityId),
        type: relation.type,
        ...held(relation),
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

describe('export → import into an empty account → export keeps what was written', () => {
  it('json: every field, dates included', async () => {
    await fc.assert(
      fc.asyncProperty(graph, async (document) => {
        const source = await account();
        await importDocument(source, 'json', document);
        const first = await exportJson(source);
        expect(written(first, { dated: true })).toEqual(written(document, { dated: true }));
        const copy = await account();
        await importDocument(copy, 'json', first);
        const second = await exportJson(copy);
        expect(written(second, { dated: true })).toEqual(written(first, { dated: true }));
      }),
      { numRuns: 20 },
    );
  });

  it('markdown: names, types, aliases, metadata, observations and relations', async () => {
    await fc.assert(
      fc.asyncProperty(graph, async (document) => {
        const source = await account();
        await importDocument(source, 'json', document);
        const zip = await source({ method: 'GET', url: '/api/export?format=markdown' });
        expect(zip.statusCode).toBe(200);
        const copy = await account();
        await importDocument(copy, 'markdown', zip.rawPayload);
        expect(written(await exportJson(copy), { dated: false })).toEqual(
          written(await exportJson(source), { dated: false }),
        );
      }),
      { numRuns: 15 },
    );
  });
});
