import { randomUUID } from 'node:crypto';
import {
  ALIAS_MAX,
  ENTITY_NAME_MAX,
  METADATA_MAX_BYTES,
  OBSERVATION_MAX,
  TYPE_MAX,
} from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';

// One set of field limits for every door: the lossless JSON import used to
// check names, types, texts and metadata only as strings and records, and
// stored what every other door refuses (a 100,000-character name, 1.5 MB of
// metadata), which the duplicate finder and the Markdown export then choked
// on. Each case here is refused whole: 400 naming the field, nothing written.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function account(): Promise<Call> {
  const { token } = await signUp(t.app);
  return as(t.app, token);
}

const now = new Date().toISOString();

function entity(fields: Record<string, unknown> = {}) {
  return {
    id: randomUUID(),
    name: `Entity ${randomUUID().slice(0, 8)}`,
    type: 'person',
    metadata: {},
    createdAt: now,
    updatedAt: now,
    observations: [],
    ...fields,
  };
}

function observation(fields: Record<string, unknown> = {}) {
  return { id: randomUUID(), content: 'a fact', createdAt: now, ...fields };
}

const document = (entities: unknown[], relations: unknown[] = []) => ({
  format: 'engram',
  version: 1,
  entities,
  relations,
});

const importJson = (call: Call, body: unknown) =>
  call({
    method: 'POST',
    url: '/api/import?format=json',
    headers: { 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function entityCount(call: Call): Promise<number> {
  const response = await call({ method: 'GET', url: '/api/entities?limit=1' });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ total: number }>().total;
}

/** Metadata nested `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('POST /api/import?format=json applies the limits every other door does', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'a 100,000-character name',
      () => document([entity(), entity({ name: 'n'.repeat(100_000) })]),
      new RegExp(`entities\\.1\\.name.*at most ${ENTITY_NAME_MAX} characters`),
    ],
    [
      'a 250,000-character name (past what a PostgreSQL index row holds)',
      () => document([entity({ name: 'x'.repeat(250_000) })]),
      /entities\.0\.name/,
    ],
    [
      'a name one past the limit',
      () => document([entity({ name: 'n'.repeat(ENTITY_NAME_MAX + 1) })]),
      /entities\.0\.name/,
    ],
    [
      'a blank name',
      () => document([entity({ name: '   ' })]),
      /entities\.0\.name.*Name is required/,
    ],
    [
      'a type past the limit',
      () => document([entity({ type: 't'.repeat(TYPE_MAX + 1) })]),
      /entities\.0\.type/,
    ],
    [
      'a 1.5 MB observation',
      () => document([entity({ observations: [observation({ content: 'o'.repeat(1_500_000) })] })]),
      new RegExp(`entities\\.0\\.observations\\.0\\.content.*at most ${OBSERVATION_MAX}`),
    ],
    [
      'an observation one past the limit',
      () =>
        document([
          entity({ observations: [observation({ content: 'o'.repeat(OBSERVATION_MAX + 1) })] }),
        ]),
      /entities\.0\.observations\.0\.content/,
    ],
    [
      '1.5 MB of metadata',
      () => document([entity({ metadata: { blob: 'm'.repeat(1_500_000) } })]),
      new RegExp(`entities\\.0\\.metadata.*${METADATA_MAX_BYTES / 1024} KB`),
    ],
    [
      'metadata 5,000 levels deep',
      // Written by hand: JSON.stringify itself overflows at this depth.
      () =>
        JSON.stringify(document([entity({ metadata: { deep: 'HERE' } })])).replace(
          '"HERE"',
          `${'{"a":'.repeat(5_000)}{}${'}'.repeat(5_000)}`,
        ),
      /entities\.0\.metadata.*nest at most/,
    ],
    [
      "an observation's metadata past the limit",
      () =>
        document([
          entity({
            observations: [observation({ metadata: { blob: 'm'.repeat(METADATA_MAX_BYTES) } })],
          }),
        ]),
      /entities\.0\.observations\.0\.metadata/,
    ],
    [
      'an alias past the limit',
      () => document([entity({ aliases: ['a'.repeat(ALIAS_MAX + 1)] })]),
      /entities\.0\.aliases\.0/,
    ],
    [
      'a NUL character in a name',
      () => document([entity({ name: 'Ada\u0000' })]),
      /entities\.0\.name/,
    ],
    [
      'an observation whose validFrom is after its validTo',
      () =>
        document([
          entity({
            observations: [observation({ validFrom: '2024-02-01', validTo: '2024-01-01' })],
          }),
        ]),
      /entities\.0\.observations\.0\.validTo.*validFrom must not be after validTo/,
    ],
    [
      'a createdAt in year 0',
      () => document([entity({ createdAt: '0000-01-01T00:00:00Z' })]),
      /entities\.0\.createdAt.*year 1 to 9999/,
    ],
    [
      'a createdAt past year 9999 once its offset is applied',
      () => document([entity({ updatedAt: '9999-12-31T23:00:00-05:00' })]),
      /entities\.0\.updatedAt.*year 1 to 9999/,
    ],
    [
      'an observation valid from year 0',
      () => document([entity({ observations: [observation({ validFrom: '0000-01-01' })] })]),
      /entities\.0\.observations\.0\.validFrom/,
    ],
    [
      'a relation type past the limit',
      () => {
        const [a, b] = [entity(), entity()];
        return document(
          [a, b],
          [
            {
              id: randomUUID(),
              fromEntityId: a.id,
              toEntityId: b.id,
              type: 'r'.repeat(TYPE_MAX + 1),
              createdAt: now,
            },
          ],
        );
      },
      /relations\.0\.type/,
    ],
  ];

  it.each(cases)('refuses %s: 400 naming the field, nothing written', async (_, body, field) => {
    const call = await account();
    const response = await importJson(call, body());
    expect(response.statusCode, response.body.slice(0, 300)).toBe(400);
    expect(response.json<{ error: string }>().error).toMatch(field);
    expect(await entityCount(call)).toBe(0);
  });

  it('still imports fields at the limits exactly', async () => {
    const call = await account();
    const response = await importJson(
      call,
      document([
        entity({
          name: 'n'.repeat(ENTITY_NAME_MAX),
          type: 't'.repeat(TYPE_MAX),
          aliases: ['a'.repeat(ALIAS_MAX)],
          observations: [observation({ content: 'o'.repeat(OBSERVATION_MAX) })],
          metadata: nested(30),
        }),
      ]),
    );
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.json()).toMatchObject({ entities: 1, observations: 1 });
  });
});

describe('the other doors refuse the same fields', () => {
  it('REST refuses validFrom outside years 1 to 9999 (it was a 500)', async () => {
    const call = await account();
    for (const validFrom of ['0000-01-01', '9999-12-31T23:00:00-05:00']) {
      const response = await call({
        method: 'POST',
        url: '/api/entities',
        payload: { name: 'Ada', type: 'person', observations: [{ content: 'x', validFrom }] },
      });
      expect(response.statusCode, validFrom).toBe(400);
      expect(response.json<{ error: string }>().error).toMatch(/validFrom/);
    }
    expect(await entityCount(call)).toBe(0);
  });

  it('REST create and MCP-shaped JSONL import refuse a name past the limit', async () => {
    const call = await account();
    const long = 'n'.repeat(ENTITY_NAME_MAX + 1);
    const rest = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: long, type: 'person' },
    });
    expect(rest.statusCode).toBe(400);
    const jsonl = await call({
      method: 'POST',
      url: '/api/import?format=jsonl',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: JSON.stringify({ type: 'entity', name: long, entityType: 'person' }),
    });
    expect(jsonl.statusCode).toBe(400);
    expect(await entityCount(call)).toBe(0);
  });

  it('the JSONL import refuses an observation past the limit, naming the line and field', async () => {
    const call = await account();
    const lines = [
      { type: 'entity', name: 'Ada', entityType: 'person', observations: ['fine'] },
      {
        type: 'entity',
        name: 'Grace',
        entityType: 'person',
        observations: ['o'.repeat(OBSERVATION_MAX + 1)],
      },
    ];
    const response = await call({
      method: 'POST',
      url: '/api/import?format=jsonl',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: lines.map((line) => JSON.stringify(line)).join('\n'),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: string }>().error).toMatch(/Line 2 \(observations\.0\)/);
    expect(await entityCount(call)).toBe(0);
  });
});

describe('rows stored over the limits before every door checked them', () => {
  it('stay readable, and a revert restores them as they were', async () => {
    const call = await account();
    const created = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Old row', type: 'person', observations: ['short'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    // As an import wrote them before this change: past today's limits.
    const name = `Old ${'n'.repeat(20_000)}`;
    const content = 'o'.repeat(OBSERVATION_MAX * 2);
    await t.database.db.updateTable('entities').set({ name }).where('id', '=', id).execute();
    await t.database.db
      .updateTable('observations')
      .set({ content })
      .where('entity_id', '=', id)
      .execute();

    const read = async () => {
      const response = await call({ method: 'GET', url: `/api/entities/${id}` });
      expect(response.statusCode).toBe(200);
      return response.json<{ name: string; observations: { content: string }[] }>();
    };
    expect(await read()).toMatchObject({ name, observations: [{ content }] });

    const deleted = await call({ method: 'DELETE', url: `/api/entities/${id}` });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const { callSeq } = deleted.json<{ callSeq: number }>();
    const reverted = await call({ method: 'POST', url: `/api/changes/${callSeq}/revert` });
    expect(reverted.statusCode, reverted.body.slice(0, 300)).toBe(200);
    expect(await read()).toMatchObject({ name, observations: [{ content }] });
  });
});
