import { randomUUID } from 'node:crypto';
import type { Entity, EntityList, Relation, RelationList, TypeList } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEntity,
  createRelation,
  getJson,
  newAccount,
  type Account,
} from '../../test/graph-fixtures.js';
import { hashSecret } from '../../lib/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import {
  expectError,
  expectIsoDate,
  expectNotFound,
  expectValidationError,
  MALFORMED_IDS,
  UUID_RE,
} from '../../test/http-assertions.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
});

const names = (list: { entities: Entity[] }) => list.entities.map((entity) => entity.name);
const contents = (entity: Entity) => entity.observations.map((o) => o.content);

async function search(account: Account, params: Record<string, string | number>) {
  const query = new URLSearchParams(
    Object.entries(params).map(([key, value]): [string, string] => [key, String(value)]),
  );
  return getJson<EntityList>(account.req, `/api/entities?${query.toString()}`);
}

describe('POST /api/entities', () => {
  let a: Account;
  beforeAll(async () => {
    a = await newAccount(t.app);
  });

  it('creates the entity: 201 with the full entity, names trimmed, blank observations dropped', async () => {
    const response = await a.req({
      method: 'POST',
      url: '/api/entities',
      payload: {
        name: '  Ada Lovelace  ',
        type: ' person ',
        metadata: { born: 1815, tags: ['math', 'poetry'], nested: { a: { b: null } } },
        observations: ['Wrote the first program', '', '   ', 'Worked with Babbage'],
      },
    });
    expect(response.statusCode).toBe(201);
    const entity = response.json<Entity>();
    expect(entity).toEqual({
      id: expect.stringMatching(UUID_RE),
      name: 'Ada Lovelace',
      aliases: [],
      type: 'person',
      metadata: { born: 1815, tags: ['math', 'poetry'], nested: { a: { b: null } } },
      observations: [
        {
          id: expect.stringMatching(UUID_RE),
          content: 'Wrote the first program',
          createdAt: expect.any(String),
        },
        {
          id: expect.stringMatching(UUID_RE),
          content: 'Worked with Babbage',
          createdAt: expect.any(String),
        },
      ],
      observationsCount: 2,
      possibleDuplicates: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expectIsoDate(entity.createdAt);
    expectIsoDate(entity.updatedAt);
    for (const observation of entity.observations) expectIsoDate(observation.createdAt);

    // What GET returns is what POST returned, but for the create's possible duplicates.
    const { possibleDuplicates: _, ...read } = entity as Entity & { possibleDuplicates: [] };
    expect(await getJson<Entity>(a.req, `/api/entities/${entity.id}`)).toEqual(read);
  });

  it('defaults metadata to {} and observations to []', async () => {
    const entity = await createEntity(a.req, { name: 'Bare', type: 'concept' });
    expect(entity.metadata).toEqual({});
    expect(entity.observations).toEqual([]);
    expect(entity.observationsCount).toBe(0);
  });

  it('keeps observation metadata and drops repeated texts', async () => {
    const entity = await createEntity(a.req, {
      name: 'With observation metadata',
      observations: [
        { content: 'from chat', metadata: { source: 'chat', confidence: 0.9 } },
        'plain',
        'plain',
        { content: '  ' },
      ],
    });
    expect(entity.observations.map(({ content, metadata }) => ({ content, metadata }))).toEqual([
      { content: 'from chat', metadata: { source: 'chat', confidence: 0.9 } },
      { content: 'plain', metadata: undefined },
    ]);
    expect(entity.observations[1]).not.toHaveProperty('metadata');
    expect(entity.observationsCount).toBe(2);
  });

  it('refuses a duplicate name (after trimming) with 409 naming the clash', async () => {
    await createEntity(a.req, { name: 'Unique Name' });
    const response = await a.req({
      method: 'POST',
      url: '/api/entities',
      payload: { name: '  Unique Name ', type: 'other' },
    });
    const body = expectError(response, 409, 'CONFLICT');
    expect(body.error).toContain('"Unique Name"');
    // Nothing was created: still exactly one entity with that name.
    const list = await search(a, { query: 'Unique Name' });
    expect(list.total).toBe(1);
    expect(list.entities[0]!.type).toBe('concept');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'not an object'],
    ['a number', 42],
    ['null', null],
    ['a boolean', true],
  ])('rejects metadata that is %s with 400 body.metadata', async (_label, metadata) => {
    const response = await a.req({
      method: 'POST',
      url: '/api/entities',
      payload: { name: `meta-${randomUUID()}`, type: 'concept', metadata },
    });
    expectValidationError(response, ['body.metadata']);
  });

  it('rejects metadata over 64 KB', async () => {
    const response = await a.req({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'big metadata', type: 'concept', metadata: { blob: 'x'.repeat(70_000) } },
    });
    expectValidationError(response, ['body.metadata']);
  });

  it.each([
    ['a missing name', { type: 'concept' }, ['body.name']],
    ['a blank name', { name: '   ', type: 'concept' }, ['body.name']],
    ['a numeric name', { name: 12, type: 'concept' }, ['body.name']],
    ['a name over 500 characters', { name: 'n'.repeat(501), type: 'concept' }, ['body.name']],
    ['a missing type', { name: 'typeless' }, ['body.type']],
    ['a blank type', { name: 'typeless', type: ' ' }, ['body.type']],
    ['a type over 100 characters', { name: 'long type', type: 't'.repeat(101) }, ['body.type']],
    ['an empty body', {}, ['body.name', 'body.type']],
    [
      'observations that are not a list',
      { name: 'o', type: 't', observations: 'x' },
      ['body.observations'],
    ],
    [
      'an observation that is a number',
      { name: 'o', type: 't', observations: [5] },
      ['body.observations.0'],
    ],
    [
      'an observation over 10,000 characters',
      { name: 'o', type: 't', observations: ['x'.repeat(10_001)] },
      ['body.observations.0'],
    ],
  ])('rejects %s with 400 naming the field', async (_label, payload, fields) => {
    const response = await a.req({ method: 'POST', url: '/api/entities', payload });
    expectValidationError(response, fields);
  });

  it('rejects more than 1,000 observations in one request', async () => {
    const response = await a.req({
      method: 'POST',
      url: '/api/entities',
      payload: {
        name: 'many',
        type: 't',
        observations: Array.from({ length: 1001 }, (_, i) => `o${i}`),
      },
    });
    expectValidationError(response, ['body.observations']);
  });

  it('rejects a body that is not a JSON object', async () => {
    for (const payload of ['[]', 'null', '"text"', '{not json']) {
      const response = await a.req({
        method: 'POST',
        url: '/api/entities',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expectError(response, 400, 'VALIDATION_ERROR');
    }
  });
});

describe('GET /api/entities/{id}', () => {
  let a: Account;
  let entity: Entity;
  beforeAll(async () => {
    a = await newAccount(t.app);
    entity = await createEntity(a.req, {
      name: 'Lookup',
      type: 'technology',
      metadata: { version: 3 },
      observations: ['first', 'second', 'third'],
    });
  });

  it('returns the entity with its observations in order and their count', async () => {
    const fetched = await getJson<Entity>(a.req, `/api/entities/${entity.id}`);
    expect(fetched).toEqual(entity);
    expect(contents(fetched)).toEqual(['first', 'second', 'third']);
    expect(fetched.observationsCount).toBe(3);
  });

  it('accepts the id in upper case', async () => {
    const fetched = await getJson<Entity>(a.req, `/api/entities/${entity.id.toUpperCase()}`);
    expect(fetched.id).toBe(entity.id);
  });

  it('answers 404 NOT_FOUND for a random uuid', async () => {
    expectNotFound(await a.req({ method: 'GET', url: `/api/entities/${randomUUID()}` }));
  });

  it.each(MALFORMED_IDS)(
    'answers 404 NOT_FOUND (never 400/500) for the malformed id %j',
    async (id) => {
      const url = `/api/entities/${encodeURIComponent(id)}`;
      expectNotFound(await a.req({ method: 'GET', url }));
      expectNotFound(await a.req({ method: 'PUT', url, payload: { name: 'x', type: 'y' } }));
      expectNotFound(await a.req({ method: 'DELETE', url }));
      expectNotFound(
        await a.req({
          method: 'POST',
          url: `${url}/observations`,
          payload: { observations: ['x'] },
        }),
      );
    },
  );

  // A long malformed id is as unknown as any other: 404, not a validation error.
  it('answers 404 for a malformed id of 201–500 characters', async () => {
    for (const length of [201, 300, 500]) {
      const url = `/api/entities/${'a'.repeat(length)}`;
      expectNotFound(await a.req({ method: 'GET', url }));
    }
  });
});

describe('GET /api/entities (list, filter, paginate)', () => {
  let a: Account;
  const created: Entity[] = [];
  beforeAll(async () => {
    a = await newAccount(t.app);
    const types = ['person', 'company', 'technology'];
    for (let i = 0; i < 105; i++) {
      created.push(
        await createEntity(a.req, {
          name: `Item ${String(i).padStart(3, '0')}`,
          type: types[i % 3]!,
        }),
      );
    }
  });

  it('returns {entities, total}, newest first, 100 by default', async () => {
    const list = await getJson<EntityList>(a.req, '/api/entities');
    expect(Object.keys(list).sort()).toEqual([
      'entities',
      'nextCursor',
      'nextOffset',
      'total',
      'truncated',
    ]);
    expect(list.total).toBe(105);
    expect(list.entities).toHaveLength(100);
    const newestFirst = [...created].reverse().map((entity) => entity.name);
    expect(names(list)).toEqual(newestFirst.slice(0, 100));
    expect(list.entities[0]).toEqual(created[104]);
  });

  it('pages with limit and offset without gaps or repeats', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 105; offset += 40) {
      const page = await getJson<EntityList>(a.req, `/api/entities?limit=40&offset=${offset}`);
      expect(page.total).toBe(105);
      seen.push(...names(page));
    }
    expect(seen).toEqual([...created].reverse().map((entity) => entity.name));
    const past = await getJson<EntityList>(a.req, '/api/entities?offset=500');
    expect(past).toEqual({
      entities: [],
      total: 105,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });
  });

  it('allows limit up to 1000', async () => {
    const list = await getJson<EntityList>(a.req, '/api/entities?limit=1000');
    expect(list.entities).toHaveLength(105);
  });

  it.each([
    ['limit=1001', 'query.limit'],
    ['limit=0', 'query.limit'],
    ['limit=-5', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['limit=2.5', 'query.limit'],
    ['offset=-1', 'query.offset'],
    ['offset=x', 'query.offset'],
    [`query=${'q'.repeat(501)}`, 'query.query'],
  ])('rejects %s with 400 naming %s', async (queryString, field) => {
    expectValidationError(await a.req({ method: 'GET', url: `/api/entities?${queryString}` }), [
      field,
    ]);
  });

  it('filters by comma-separated types; total counts only the matches', async () => {
    const two = await getJson<EntityList>(a.req, '/api/entities?types=person,company&limit=1000');
    expect(two.total).toBe(70);
    expect(two.entities).toHaveLength(70);
    expect(new Set(two.entities.map((entity) => entity.type))).toEqual(
      new Set(['person', 'company']),
    );

    const spaced = await getJson<EntityList>(
      a.req,
      `/api/entities?types=${encodeURIComponent(' technology , ,')}&limit=5`,
    );
    expect(spaced.total).toBe(35);
    expect(spaced.entities).toHaveLength(5);
    expect(spaced.entities.every((entity) => entity.type === 'technology')).toBe(true);

    const none = await getJson<EntityList>(a.req, '/api/entities?types=nothing-like-this');
    expect(none).toEqual({
      entities: [],
      total: 0,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });

    // An empty or blank list is no filter.
    for (const types of ['', ',', '%20,%20']) {
      const all = await getJson<EntityList>(a.req, `/api/entities?types=${types}&limit=1`);
      expect(all.total).toBe(105);
    }
  });
});

describe('search ranking', () => {
  let a: Account;
  beforeAll(async () => {
    a = await newAccount(t.app);
    await createEntity(a.req, {
      name: 'Paris',
      type: 'city',
      observations: ['Has a dense metro GRAPH'],
    });
    await createEntity(a.req, { name: 'Neo4j', type: 'graph-database' });
    await createEntity(a.req, {
      name: 'Knowledge Graph',
      type: 'concept',
      observations: ['graph theory'],
    });
    await createEntity(a.req, { name: 'GraphQL', type: 'technology' });
    await createEntity(a.req, { name: 'Zeta', type: 'concept', observations: ['nothing to see'] });
    await createEntity(a.req, { name: 'Agraphia', type: 'condition' });
    await createEntity(a.req, { name: 'Graph', type: 'concept' });
    await createEntity(a.req, { name: 'graphite', type: 'mineral' });
  });

  const ranked = ['Graph', 'graphite', 'GraphQL', 'Agraphia', 'Knowledge Graph', 'Neo4j', 'Paris'];

  it('orders exact name, name prefix, name substring, type match, observation match', async () => {
    const list = await search(a, { query: 'GRAPH' });
    expect(names(list)).toEqual(ranked);
    expect(list.total).toBe(7);
    // Results are full entities with their observations.
    const paris = list.entities.find((entity) => entity.name === 'Paris')!;
    expect(contents(paris)).toEqual(['Has a dense metro GRAPH']);
  });

  it('ranks a term too short for the trigram index the same way', async () => {
    const list = await search(a, { query: 'GR' });
    expect(names(list)).toEqual(ranked);
    expect(list.total).toBe(7);
  });

  it('trims the query and matches case-insensitively', async () => {
    expect(names(await search(a, { query: '  neo4J ' }))).toEqual(['Neo4j']);
    expect(names(await search(a, { query: 'METRO' }))).toEqual(['Paris']);
    expect(names(await search(a, { query: 'mineral' }))).toEqual(['graphite']);
  });

  it('pages the ranked matches with limit/offset; total counts every match', async () => {
    const pages = [];
    for (const offset of [0, 3, 6]) {
      const page = await search(a, { query: 'graph', limit: 3, offset });
      expect(page.total).toBe(7);
      pages.push(...names(page));
    }
    expect(pages).toEqual(ranked);
    expect(await search(a, { query: 'graph', limit: 3, offset: 7 })).toEqual({
      entities: [],
      total: 7,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });
    expect(await search(a, { query: 'graph', offset: 100 })).toEqual({
      entities: [],
      total: 7,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });
  });

  it('combines the query with the types filter', async () => {
    const concepts = await search(a, { query: 'graph', types: 'concept' });
    expect(names(concepts)).toEqual(['Graph', 'Knowledge Graph']);
    expect(concepts.total).toBe(2);
    const cities = await search(a, { query: 'graph', types: 'city,mineral' });
    expect(names(cities)).toEqual(['graphite', 'Paris']);
    expect(cities.total).toBe(2);
  });

  it('returns nothing for a query that matches nothing', async () => {
    expect(await search(a, { query: 'no such thing anywhere' })).toEqual({
      entities: [],
      total: 0,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });
  });
});

describe('search treats LIKE wildcards literally', () => {
  let a: Account;
  beforeAll(async () => {
    a = await newAccount(t.app);
    for (const name of [
      '100% pure',
      '1000 pure',
      'snake_case',
      'snakeXcase',
      'back\\slash',
      'backXslash',
    ]) {
      await createEntity(a.req, { name, type: 'thing' });
    }
  });

  it.each([
    ['%', ['100% pure']],
    ['0%', ['100% pure']],
    ['0% p', ['100% pure']],
    ['_', ['snake_case']],
    ['e_c', ['snake_case']],
    ['\\', ['back\\slash']],
    ['k\\s', ['back\\slash']],
    ['%%', []],
    ['__', []],
  ])('query %j matches %j only', async (query, expected) => {
    const list = await search(a, { query });
    expect(names(list)).toEqual(expected);
    expect(list.total).toBe(expected.length);
  });
});

describe('PUT /api/entities/{id}', () => {
  let a: Account;
  beforeAll(async () => {
    a = await newAccount(t.app);
  });

  it('replaces the observation list; unchanged observations keep their ids and createdAt', async () => {
    const before = await createEntity(a.req, {
      name: 'Replaceable',
      type: 'concept',
      metadata: { keep: true },
      observations: ['one', 'two', 'three'],
    });
    const byContent = new Map(before.observations.map((o) => [o.content, o]));

    const response = await a.req({
      method: 'PUT',
      url: `/api/entities/${before.id}`,
      payload: { name: ' Replaced ', type: ' event ', observations: ['two', ' four ', '', 'one'] },
    });
    expect(response.statusCode).toBe(200);
    const after = response.json<Entity>();
    expect(after.id).toBe(before.id);
    expect(after.name).toBe('Replaced');
    expect(after.type).toBe('event');
    expect(after.metadata).toEqual({ keep: true });
    expect(contents(after)).toEqual(['two', 'four', 'one']);
    expect(after.observationsCount).toBe(3);
    expect(after.observations[0]).toEqual(byContent.get('two'));
    expect(after.observations[2]).toEqual(byContent.get('one'));
    expect(after.observations[1]!.id).toMatch(UUID_RE);
    expect(before.observations.map((o) => o.id)).not.toContain(after.observations[1]!.id);
    expect(after.createdAt).toBe(before.createdAt);
    expect(new Date(after.updatedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(before.updatedAt).getTime(),
    );

    expect(await getJson<Entity>(a.req, `/api/entities/${before.id}`)).toEqual(after);
    // The removed observation is no longer searchable; the new one is.
    expect(names(await search(a, { query: 'three' }))).toEqual([]);
    expect(names(await search(a, { query: 'four' }))).toEqual(['Replaced']);
  });

  it('keeps observations and metadata when they are omitted; replaces metadata when given', async () => {
    const before = await createEntity(a.req, {
      name: 'Partial',
      metadata: { a: 1 },
      observations: ['kept'],
    });
    const renamed = await a.req({
      method: 'PUT',
      url: `/api/entities/${before.id}`,
      payload: { name: 'Partial 2', type: 'concept' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json<Entity>().observations).toEqual(before.observations);
    expect(renamed.json<Entity>().metadata).toEqual({ a: 1 });

    const remeta = await a.req({
      method: 'PUT',
      url: `/api/entities/${before.id}`,
      payload: { name: 'Partial 2', type: 'concept', metadata: { b: 2 } },
    });
    expect(remeta.json<Entity>().metadata).toEqual({ b: 2 });
    expect(remeta.json<Entity>().observations).toEqual(before.observations);

    const emptied = await a.req({
      method: 'PUT',
      url: `/api/entities/${before.id}`,
      payload: { name: 'Partial 2', type: 'concept', metadata: {}, observations: [] },
    });
    expect(emptied.json<Entity>().metadata).toEqual({});
    expect(emptied.json<Entity>().observations).toEqual([]);
    expect(emptied.json<Entity>().observationsCount).toBe(0);
  });

  it('sets metadata on a kept observation given as {content, metadata}', async () => {
    const before = await createEntity(a.req, { name: 'Obs meta', observations: ['x', 'y'] });
    const response = await a.req({
      method: 'PUT',
      url: `/api/entities/${before.id}`,
      payload: {
        name: 'Obs meta',
        type: 'concept',
        observations: [
          { content: 'x', metadata: { source: 'edit' } },
          { content: 'z', metadata: { n: 1 } },
        ],
      },
    });
    expect(response.statusCode).toBe(200);
    const after = response.json<Entity>();
    expect(after.observations.map(({ content, metadata }) => ({ content, metadata }))).toEqual([
      { content: 'x', metadata: { source: 'edit' } },
      { content: 'z', metadata: { n: 1 } },
    ]);
    expect(after.observations[0]!.id).toBe(before.observations[0]!.id);
  });

  it('refuses a rename onto another entity’s name with 409 naming it; renaming to itself is fine', async () => {
    await createEntity(a.req, { name: 'Taken' });
    const mine = await createEntity(a.req, { name: 'Mine', observations: ['m'] });
    const clash = await a.req({
      method: 'PUT',
      url: `/api/entities/${mine.id}`,
      payload: { name: ' Taken ', type: 'concept' },
    });
    const body = expectError(clash, 409, 'CONFLICT');
    expect(body.error).toContain('"Taken"');
    expect(await getJson<Entity>(a.req, `/api/entities/${mine.id}`)).toEqual(mine);

    const same = await a.req({
      method: 'PUT',
      url: `/api/entities/${mine.id}`,
      payload: { name: 'Mine', type: 'concept' },
    });
    expect(same.statusCode).toBe(200);
  });

  it('validates like create: name and type required, metadata an object', async () => {
    const entity = await createEntity(a.req, { name: 'Validated' });
    const url = `/api/entities/${entity.id}`;
    expectValidationError(await a.req({ method: 'PUT', url, payload: { type: 'x' } }), [
      'body.name',
    ]);
    expectValidationError(await a.req({ method: 'PUT', url, payload: { name: 'x' } }), [
      'body.type',
    ]);
    expectValidationError(
      await a.req({ method: 'PUT', url, payload: { name: 'x', type: 'y', metadata: ['no'] } }),
      ['body.metadata'],
    );
    expectValidationError(
      await a.req({ method: 'PUT', url, payload: { name: 'x', type: 'y', metadata: 'no' } }),
      ['body.metadata'],
    );
    expect(await getJson<Entity>(a.req, url)).toEqual(entity);
  });

  it('answers 404 for an unknown id', async () => {
    expectNotFound(
      await a.req({
        method: 'PUT',
        url: `/api/entities/${randomUUID()}`,
        payload: { name: 'x', type: 'y' },
      }),
    );
  });
});

describe('DELETE /api/entities/{id}', () => {
  it('deletes the entity with its observations and relations', async () => {
    const a = await newAccount(t.app);
    const x = await createEntity(a.req, {
      name: 'X',
      type: 'person',
      observations: ['xylophone player'],
    });
    const y = await createEntity(a.req, { name: 'Y', type: 'person' });
    const z = await createEntity(a.req, { name: 'Z', type: 'company' });
    await createRelation(a.req, x, y, 'knows');
    await createRelation(a.req, z, x, 'employs');
    const yz = await createRelation(a.req, y, z, 'works_at');

    const response = await a.req({ method: 'DELETE', url: `/api/entities/${x.id}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, callSeq: expect.any(Number) });

    expectNotFound(await a.req({ method: 'GET', url: `/api/entities/${x.id}` }));
    expectNotFound(await a.req({ method: 'DELETE', url: `/api/entities/${x.id}` }));

    const relations = await getJson<RelationList>(a.req, '/api/relations');
    expect(relations.total).toBe(1);
    expect(relations.relations.map((r) => r.id)).toEqual([yz.id]);
    expect(await getJson<RelationList>(a.req, `/api/relations?entityId=${x.id}`)).toEqual({
      relations: [],
      total: 0,
      nextOffset: null,
      truncated: false,
    });
    const aroundY = await getJson<{ entities: { id: string }[]; relations: { id: string }[] }>(
      a.req,
      `/api/relations/graph/${y.id}?depth=5`,
    );
    expect(aroundY.entities.map((e) => e.id).sort()).toEqual([y.id, z.id].sort());
    expect(aroundY.relations.map((r) => r.id)).toEqual([yz.id]);

    // Its observations went too: nothing matches their text any more.
    expect(await search(a, { query: 'xylophone' })).toEqual({
      entities: [],
      total: 0,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });

    const list = await getJson<EntityList>(a.req, '/api/entities');
    expect(list.total).toBe(2);
    expect(names(list).sort()).toEqual(['Y', 'Z']);
    expect((await getJson<TypeList>(a.req, '/api/entities/types')).types).toEqual([
      { type: 'company', label: 'Company', count: 1 },
      { type: 'person', label: 'Person', count: 1 },
    ]);
  });

  it('the freed name can be used again', async () => {
    const a = await newAccount(t.app);
    const first = await createEntity(a.req, { name: 'Phoenix' });
    await a.req({ method: 'DELETE', url: `/api/entities/${first.id}` });
    const second = await createEntity(a.req, { name: 'Phoenix' });
    expect(second.id).not.toBe(first.id);
  });

  // The web app sends a JSON content type, bodiless DELETEs included.
  it('accepts DELETE with a JSON content type and no body', async () => {
    const a = await newAccount(t.app);
    const entity = await createEntity(a.req, { name: 'Deleted with header' });
    const response = await a.req({
      method: 'DELETE',
      url: `/api/entities/${entity.id}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode, response.body).toBe(200);
  });
});

describe('POST /api/entities/{id}/observations', () => {
  let a: Account;
  beforeAll(async () => {
    a = await newAccount(t.app);
  });

  it('appends new observations (strings or {content, metadata}); returns 201 {entity, added}', async () => {
    const entity = await createEntity(a.req, { name: 'Growing', observations: ['alpha'] });
    const response = await a.req({
      method: 'POST',
      url: `/api/entities/${entity.id}/observations`,
      payload: {
        observations: [
          'beta',
          '   ',
          'alpha',
          { content: 'gamma', metadata: { source: 'chat' } },
          'beta',
          ' delta ',
        ],
      },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json<{ entity: Entity; added: Entity['observations'] }>();
    expect(Object.keys(body).sort()).toEqual(['added', 'entity']);
    expect(body.added.map(({ content, metadata }) => ({ content, metadata }))).toEqual([
      { content: 'beta', metadata: undefined },
      { content: 'gamma', metadata: { source: 'chat' } },
      { content: 'delta', metadata: undefined },
    ]);
    for (const observation of body.added) {
      expect(observation.id).toMatch(UUID_RE);
      expectIsoDate(observation.createdAt);
    }
    expect(contents(body.entity)).toEqual(['alpha', 'beta', 'gamma', 'delta']);
    expect(body.entity.observations[0]).toEqual(entity.observations[0]);
    expect(body.entity.observations.slice(1)).toEqual(body.added);
    expect(body.entity.observationsCount).toBe(4);
    expect(await getJson<Entity>(a.req, `/api/entities/${entity.id}`)).toEqual(body.entity);
  });

  it('adds nothing when every text is already there (201, added [])', async () => {
    const entity = await createEntity(a.req, { name: 'Saturated', observations: ['only'] });
    const response = await a.req({
      method: 'POST',
      url: `/api/entities/${entity.id}/observations`,
      payload: { observations: ['only', ' only '] },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().added).toEqual([]);
    expect(response.json().entity.observations).toEqual(entity.observations);
  });

  it('rejects only-blank observations, an empty list, a missing list and bad items with 400', async () => {
    const entity = await createEntity(a.req, { name: 'Strict' });
    const url = `/api/entities/${entity.id}/observations`;
    const blank = expectError(
      await a.req({ method: 'POST', url, payload: { observations: ['  ', ''] } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(blank.details!.map((detail) => detail.field.replace(/^body\./, ''))).toEqual([
      'observations',
    ]);
    expectValidationError(await a.req({ method: 'POST', url, payload: { observations: [] } }), [
      'body.observations',
    ]);
    expectValidationError(await a.req({ method: 'POST', url, payload: {} }), ['body.observations']);
    expectValidationError(await a.req({ method: 'POST', url, payload: { observations: 'text' } }), [
      'body.observations',
    ]);
    expectValidationError(
      await a.req({
        method: 'POST',
        url,
        payload: { observations: [{ content: 'x', metadata: [] }] },
      }),
      ['body.observations.0'],
    );
    expect(await getJson<Entity>(a.req, `/api/entities/${entity.id}`)).toEqual(entity);
  });

  it('answers 404 for an unknown entity', async () => {
    expectNotFound(
      await a.req({
        method: 'POST',
        url: `/api/entities/${randomUUID()}/observations`,
        payload: { observations: ['x'] },
      }),
    );
  });
});

describe('GET /api/entities/types', () => {
  it('lists [{type, label, count}], most common first, following creates, edits and deletes', async () => {
    const a = await newAccount(t.app);
    expect((await getJson<TypeList>(a.req, '/api/entities/types')).types).toEqual([]);
    const people = [];
    for (let i = 0; i < 3; i++)
      people.push(await createEntity(a.req, { name: `P${i}`, type: 'person' }));
    await createEntity(a.req, { name: 'C0', type: 'company' });
    await createEntity(a.req, { name: 'C1', type: 'company' });
    const stack = await createEntity(a.req, { name: 'S0', type: 'tech-stack' });
    await createEntity(a.req, { name: 'D0', type: 'depends_on' });

    expect((await getJson<TypeList>(a.req, '/api/entities/types')).types).toEqual([
      { type: 'person', label: 'Person', count: 3 },
      { type: 'company', label: 'Company', count: 2 },
      { type: 'depends_on', label: 'Depends on', count: 1 },
      { type: 'tech-stack', label: 'Tech stack', count: 1 },
    ]);

    await a.req({
      method: 'PUT',
      url: `/api/entities/${people[0]!.id}`,
      payload: { name: 'P0', type: 'company' },
    });
    await a.req({
      method: 'PUT',
      url: `/api/entities/${people[1]!.id}`,
      payload: { name: 'P1', type: 'company' },
    });
    await a.req({ method: 'DELETE', url: `/api/entities/${stack.id}` });

    expect((await getJson<TypeList>(a.req, '/api/entities/types')).types).toEqual([
      { type: 'company', label: 'Company', count: 4 },
      { type: 'depends_on', label: 'Depends on', count: 1 },
      { type: 'person', label: 'Person', count: 1 },
    ]);
    const list = await getJson<EntityList>(a.req, '/api/entities?types=company');
    expect(list.total).toBe(4);
  });
});

describe('concurrent writes', () => {
  it('concurrent creates of one name: exactly one 201, the rest 409', async () => {
    const a = await newAccount(t.app);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        a.req({
          method: 'POST',
          url: '/api/entities',
          payload: { name: 'Racer', type: 'concept' },
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      expectError(response, 409, 'CONFLICT');
    }
    expect((await getJson<TypeList>(a.req, '/api/entities/types')).types).toEqual([
      { type: 'concept', label: 'Concept', count: 1 },
    ]);
    expect((await getJson<EntityList>(a.req, '/api/entities')).total).toBe(1);
  });

  it('concurrent duplicate relations: exactly one 201, the rest 409', async () => {
    const a = await newAccount(t.app);
    const from = await createEntity(a.req, { name: 'From' });
    const to = await createEntity(a.req, { name: 'To' });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        a.req({
          method: 'POST',
          url: '/api/relations',
          payload: { fromEntityId: from.id, toEntityId: to.id, type: 'uses' },
        }),
      ),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([
      201, 409, 409, 409, 409, 409,
    ]);
    expect((await getJson<RelationList>(a.req, '/api/relations')).total).toBe(1);
  });

  // Concurrent writes of one account must serialise (each write takes the
  // account's row lock first); PGlite serialises anyway, PostgreSQL must too.
  it('concurrent adds of one text store it once', async () => {
    const a = await newAccount(t.app);
    for (let round = 0; round < 3; round++) {
      const entity = await createEntity(a.req, { name: `Concurrent ${round}` });
      const responses = await Promise.all(
        Array.from({ length: 6 }, () =>
          a.req({
            method: 'POST',
            url: `/api/entities/${entity.id}/observations`,
            payload: { observations: ['same text'] },
          }),
        ),
      );
      expect(responses.every((response) => response.statusCode === 201)).toBe(true);
      const after = await getJson<Entity>(a.req, `/api/entities/${entity.id}`);
      expect(contents(after)).toEqual(['same text']);
      expect(after.observationsCount).toBe(1);
    }
  });

  it('concurrent type changes keep the type counts and the list total exact', async () => {
    const a = await newAccount(t.app);
    for (let round = 0; round < 3; round++) {
      const entity = await createEntity(a.req, { name: `Shifty ${round}`, type: 'start' });
      const responses = await Promise.all(
        ['one', 'two', 'three', 'four'].map((type) =>
          a.req({
            method: 'PUT',
            url: `/api/entities/${entity.id}`,
            payload: { name: entity.name, type },
          }),
        ),
      );
      expect(responses.every((response) => response.statusCode === 200)).toBe(true);
    }
    const list = await getJson<EntityList>(a.req, '/api/entities?limit=1000');
    expect(list.entities).toHaveLength(3);
    expect(list.total).toBe(3);
    const actual = new Map<string, number>();
    for (const entity of list.entities) actual.set(entity.type, (actual.get(entity.type) ?? 0) + 1);
    const types = (await getJson<TypeList>(a.req, '/api/entities/types')).types;
    expect(new Map(types.map((summary) => [summary.type, summary.count]))).toEqual(actual);
  });
});

describe('plan limit', () => {
  it('the free plan stops at 1,000 entities with 402 PLAN_LIMIT_REACHED; deleting one makes room', async () => {
    const a = await newAccount(t.app);
    const { account_id: accountId } = await t.database.db
      .selectFrom('sessions')
      .select('account_id')
      .where('token_hash', '=', hashSecret(a.token))
      .executeTakeFirstOrThrow();
    // 999 rows straight into the tables (as the write path keeps them), then the rest through the API.
    await t.database.db
      .insertInto('entities')
      .values(
        Array.from({ length: 999 }, (_, i) => ({
          space_id: accountId,
          name: `Bulk ${i}`,
          type: 'bulk',
          metadata: '{}',
        })),
      )
      .execute();
    await t.database.db
      .insertInto('entity_type_counts')
      .values({ space_id: accountId, type: 'bulk', count: 999 })
      .execute();
    expect((await getJson<EntityList>(a.req, '/api/entities?limit=1')).total).toBe(999);

    const last = await createEntity(a.req, { name: 'Number 1000' });
    const refused = await a.req({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Number 1001', type: 'concept' },
    });
    const body = expectError(refused, 402, 'PLAN_LIMIT_REACHED');
    expect(body.error).toContain('1,000');
    expect((await getJson<EntityList>(a.req, '/api/entities?limit=1')).total).toBe(1000);
    expect((await getJson<EntityList>(a.req, '/api/entities?query=Number 1001')).total).toBe(0);

    expect((await a.req({ method: 'DELETE', url: `/api/entities/${last.id}` })).statusCode).toBe(
      200,
    );
    await createEntity(a.req, { name: 'Number 1001' });
  });
});

describe('relations follow their entities', () => {
  it('renaming an entity shows in the relations that embed it', async () => {
    const a = await newAccount(t.app);
    const from = await createEntity(a.req, { name: 'Old name', type: 'person' });
    const to = await createEntity(a.req, { name: 'Other', type: 'company' });
    const relation: Relation = await createRelation(a.req, from, to, 'works_at');
    await a.req({
      method: 'PUT',
      url: `/api/entities/${from.id}`,
      payload: { name: 'New name', type: 'human' },
    });
    const list = await getJson<RelationList>(a.req, '/api/relations');
    expect(list.relations).toEqual([
      { ...relation, fromEntity: { id: from.id, name: 'New name', type: 'human' } },
    ]);
  });
});
