import { randomUUID } from 'node:crypto';
import type {
  Entity,
  EntityList,
  GraphData,
  Relation,
  RelationList,
  TypeList,
} from '@engram/shared';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEntity,
  createRelation,
  getJson,
  newAccount,
  type Account,
} from '../test/graph-fixtures.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { expectError, expectNotFound } from '../test/http-assertions.js';

let t: TestApp;

// Account A owns a small graph; account B has its own and tries to reach A's.
let a: Account;
let b: Account;
let a1: Entity;
let a2: Entity;
let aRelation: Relation;
let b1: Entity;
let b2: Entity;
let aKey: { id: string; apiKey: string };

beforeAll(async () => {
  t = await createTestApp();
  a = await newAccount(t.app);
  b = await newAccount(t.app);
  a1 = await createEntity(a.req, {
    name: 'Alpha Secret',
    type: 'classified',
    metadata: { owner: 'A' },
    observations: ['launch code is zebra-42'],
  });
  a2 = await createEntity(a.req, { name: 'Alpha Two', type: 'classified' });
  aRelation = await createRelation(a.req, a1, a2, 'guards');
  b1 = await createEntity(b.req, { name: 'Beta One', type: 'public' });
  b2 = await createEntity(b.req, { name: 'Beta Two', type: 'public' });
  await createRelation(b.req, b1, b2, 'knows');
  const key = await a.req({ method: 'POST', url: '/api/keys', payload: { name: 'A key' } });
  expect(key.statusCode, key.body).toBe(201);
  aKey = key.json<{ id: string; apiKey: string }>();
});

afterAll(async () => {
  await t?.close();
});

/** A's graph exactly as A sees it; compared before and after B's attempts. */
async function snapshotOfA() {
  return {
    entities: await getJson<EntityList>(a.req, '/api/entities'),
    a1: await getJson<Entity>(a.req, `/api/entities/${a1.id}`),
    relations: await getJson<RelationList>(a.req, '/api/relations'),
    types: (await getJson<TypeList>(a.req, '/api/entities/types')).types,
    keys: (await getJson<{ apiKeys: { id: string }[] }>(a.req, '/api/keys')).apiKeys.map(
      (key) => key.id,
    ),
  };
}

describe('account B cannot reach account A’s rows by id', () => {
  it('every id route answers B with the same 404 as for an id that does not exist, and A is unchanged', async () => {
    const before = await snapshotOfA();
    const attempts: [string, (id: string) => InjectOptions, 'entity' | 'relation' | 'key'][] = [
      ['GET entity', (id) => ({ method: 'GET', url: `/api/entities/${id}` }), 'entity'],
      [
        'PUT entity',
        (id) => ({
          method: 'PUT',
          url: `/api/entities/${id}`,
          payload: { name: 'Hijacked', type: 'x', observations: [] },
        }),
        'entity',
      ],
      [
        'POST observations',
        (id) => ({
          method: 'POST',
          url: `/api/entities/${id}/observations`,
          payload: { observations: ['planted'] },
        }),
        'entity',
      ],
      [
        'graph around',
        (id) => ({ method: 'GET', url: `/api/relations/graph/${id}?depth=5` }),
        'entity',
      ],
      [
        'graph data root',
        (id) => ({ method: 'GET', url: `/api/relations/graph/data?rootEntityId=${id}` }),
        'entity',
      ],
      [
        'PUT relation',
        (id) => ({ method: 'PUT', url: `/api/relations/${id}`, payload: { type: 'hijacked' } }),
        'relation',
      ],
      ['DELETE relation', (id) => ({ method: 'DELETE', url: `/api/relations/${id}` }), 'relation'],
      ['DELETE entity', (id) => ({ method: 'DELETE', url: `/api/entities/${id}` }), 'entity'],
      ['roll API key', (id) => ({ method: 'POST', url: `/api/keys/${id}/roll` }), 'key'],
      ['DELETE API key', (id) => ({ method: 'DELETE', url: `/api/keys/${id}` }), 'key'],
    ];
    for (const [label, request, kind] of attempts) {
      const target = kind === 'entity' ? a1.id : kind === 'relation' ? aRelation.id : aKey.id;
      const response = await b.req(request(target));
      const body = expectNotFound(response);
      // No existence leak: the answer is the one for a random id.
      const control = expectNotFound(await b.req(request(randomUUID())));
      expect(body, label).toEqual(control);
    }
    expect(await snapshotOfA()).toEqual(before);
    // A's key was neither rolled nor deleted: it still works, for A's data.
    const viaKey = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { 'x-api-key': aKey.apiKey },
    });
    expect(viaKey.statusCode).toBe(200);
    expect(viaKey.json<EntityList>().total).toBe(2);
  });

  it('B cannot relate its entities to A’s (404), in either direction or between two of A’s', async () => {
    const before = await snapshotOfA();
    for (const [from, to] of [
      [b1.id, a1.id],
      [a1.id, b1.id],
      [a1.id, a2.id],
    ] as const) {
      const response = await b.req({
        method: 'POST',
        url: '/api/relations',
        payload: { fromEntityId: from, toEntityId: to, type: 'spies_on' },
      });
      expectNotFound(response);
    }
    expect(await getJson<RelationList>(b.req, '/api/relations')).toMatchObject({ total: 1 });
    expect(await snapshotOfA()).toEqual(before);
  });

  it('B may use a name A already uses: names are unique per account only', async () => {
    const mine = await createEntity(b.req, { name: 'Alpha Two', type: 'copy' });
    expect(mine.id).not.toBe(a2.id);
    expect((await getJson<Entity>(a.req, `/api/entities/${a2.id}`)).type).toBe('classified');
    await b.req({ method: 'DELETE', url: `/api/entities/${mine.id}` });
  });
});

describe('account A’s data never shows in account B’s reads', () => {
  const bNames = ['Beta One', 'Beta Two'];

  it('list, search and types show only B’s entities', async () => {
    const list = await getJson<EntityList>(b.req, '/api/entities?limit=1000');
    expect(list.entities.map((entity) => entity.name).sort()).toEqual(bNames);
    expect(list.total).toBe(2);
    for (const query of ['Alpha', 'alpha secret', 'zebra', 'classified', 'a']) {
      const found = await getJson<EntityList>(
        b.req,
        `/api/entities?query=${encodeURIComponent(query)}`,
      );
      expect(
        found.entities.every((entity) => bNames.includes(entity.name)),
        query,
      ).toBe(true);
      expect(found.total).toBe(found.entities.length);
    }
    expect(await getJson<EntityList>(b.req, '/api/entities?types=classified')).toEqual({
      entities: [],
      total: 0,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });
    expect((await getJson<TypeList>(b.req, '/api/entities/types')).types).toEqual([
      { type: 'public', label: 'Public', count: 2 },
    ]);
  });

  it('relation lists, relation types and graph data show only B’s relations', async () => {
    const relations = await getJson<RelationList>(b.req, '/api/relations');
    expect(relations.total).toBe(1);
    expect(relations.relations[0]!.type).toBe('knows');
    expect(await getJson<RelationList>(b.req, '/api/relations?query=alpha')).toEqual({
      relations: [],
      total: 0,
      nextOffset: null,
      truncated: false,
    });
    expect(await getJson<RelationList>(b.req, '/api/relations?relationTypes=guards')).toEqual({
      relations: [],
      total: 0,
      nextOffset: null,
      truncated: false,
    });
    expect(await getJson<RelationList>(b.req, `/api/relations?entityId=${a1.id}`)).toEqual({
      relations: [],
      total: 0,
      nextOffset: null,
      truncated: false,
    });
    expect((await getJson<TypeList>(b.req, '/api/relations/types')).types).toEqual([
      { type: 'knows', label: 'Knows', count: 1 },
    ]);
    expect(await getJson<{ apiKeys: unknown[] }>(b.req, '/api/keys')).toEqual({ apiKeys: [] });
    const graph = await getJson<GraphData>(b.req, '/api/relations/graph/data?limit=1000');
    expect(graph.entities.map((entity) => entity.name).sort()).toEqual(bNames);
    expect(graph.relations).toHaveLength(1);
  });

  it('and the other way round: B’s data never shows in A’s reads', async () => {
    const list = await getJson<EntityList>(a.req, '/api/entities?limit=1000');
    expect(list.entities.map((entity) => entity.name).sort()).toEqual([
      'Alpha Secret',
      'Alpha Two',
    ]);
    expect((await getJson<EntityList>(a.req, '/api/entities?query=beta')).total).toBe(0);
    expect(
      (await getJson<RelationList>(a.req, '/api/relations')).relations.map((r) => r.id),
    ).toEqual([aRelation.id]);
    expectNotFound(await a.req({ method: 'GET', url: `/api/entities/${b1.id}` }));
  });
});

describe('API keys act in their own account only', () => {
  it('A’s personal key and A’s created key read A’s graph; B’s personal key reads B’s', async () => {
    const meA = await getJson<{ apiKey: string }>(a.req, '/auth/me');
    const meB = await getJson<{ apiKey: string }>(b.req, '/auth/me');
    for (const [key, expected] of [
      [meA.apiKey, ['Alpha Secret', 'Alpha Two']],
      [aKey.apiKey, ['Alpha Secret', 'Alpha Two']],
      [meB.apiKey, ['Beta One', 'Beta Two']],
    ] as const) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/entities',
        headers: { 'x-api-key': key },
      });
      expect(response.statusCode).toBe(200);
      expect(
        response
          .json<EntityList>()
          .entities.map((entity) => entity.name)
          .sort(),
      ).toEqual(expected);
    }
    const viaKey = await t.app.inject({
      method: 'GET',
      url: `/api/entities/${a1.id}`,
      headers: { 'x-api-key': meB.apiKey },
    });
    expectNotFound(viaKey);
  });
});

describe('every /api route needs a credential', () => {
  const routes = (): InjectOptions[] => [
    { method: 'GET', url: '/api/entities' },
    { method: 'GET', url: '/api/entities?query=alpha' },
    { method: 'GET', url: '/api/entities/types' },
    { method: 'GET', url: `/api/entities/${a1.id}` },
    { method: 'POST', url: '/api/entities', payload: { name: 'Intruder', type: 'x' } },
    { method: 'PUT', url: `/api/entities/${a1.id}`, payload: { name: 'Intruder', type: 'x' } },
    { method: 'DELETE', url: `/api/entities/${a1.id}` },
    {
      method: 'POST',
      url: `/api/entities/${a1.id}/observations`,
      payload: { observations: ['x'] },
    },
    { method: 'GET', url: '/api/relations' },
    { method: 'GET', url: '/api/relations/types' },
    { method: 'GET', url: `/api/relations?entityId=${a1.id}` },
    {
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: a2.id, toEntityId: a1.id, type: 'x' },
    },
    { method: 'PUT', url: `/api/relations/${aRelation.id}`, payload: { type: 'x' } },
    { method: 'DELETE', url: `/api/relations/${aRelation.id}` },
    { method: 'GET', url: `/api/relations/graph/${a1.id}` },
    { method: 'GET', url: '/api/relations/graph/data' },
    { method: 'GET', url: `/api/relations/graph/data?rootEntityId=${a1.id}` },
    // Invalid input still gets 401 first: nothing is validated for strangers.
    { method: 'POST', url: '/api/entities', payload: { name: 42 } },
    { method: 'GET', url: '/api/entities?limit=99999' },
    { method: 'GET', url: '/api/entities/not-a-uuid' },
    { method: 'GET', url: '/api/keys' },
    { method: 'POST', url: '/api/keys', payload: { name: 'Intruder key', permissions: [] } },
    { method: 'POST', url: `/api/keys/${aKey.id}/roll` },
    { method: 'DELETE', url: `/api/keys/${aKey.id}` },
    { method: 'GET', url: '/auth/me' },
    { method: 'PUT', url: '/auth/me', payload: { firstName: 'X', lastName: 'Y' } },
    {
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: 'Password123', newPassword: 'Whatever123' },
    },
    { method: 'POST', url: '/auth/logout' },
  ];

  const credentials: [string, Record<string, string>][] = [
    ['no token', {}],
    [
      'an unknown session token',
      { authorization: 'Bearer eng_sess_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG' },
    ],
    ['a garbage bearer', { authorization: 'Bearer garbage' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['a Basic credential', { authorization: 'Basic YTpi' }],
    ['an unknown x-api-key', { 'x-api-key': 'eng_key_doesnotexist' }],
  ];

  it.each(credentials)(
    'answers 401 UNAUTHORIZED with %s on every route, and changes nothing',
    async (_label, headers) => {
      const before = await snapshotOfA();
      for (const route of routes()) {
        const response = await t.app.inject({
          ...route,
          headers: { ...route.headers, ...headers },
        });
        expectError(response, 401, 'UNAUTHORIZED');
      }
      expect(await snapshotOfA()).toEqual(before);
    },
  );

  it('answers 401 for a token that was logged out', async () => {
    const c = await newAccount(t.app);
    expect((await c.req({ method: 'POST', url: '/auth/logout' })).statusCode).toBe(200);
    for (const route of routes()) {
      expectError(await c.req(route), 401, 'UNAUTHORIZED');
    }
  });
});
