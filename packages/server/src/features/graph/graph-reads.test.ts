import { randomUUID } from 'node:crypto';
import type { Entity, GraphData, Relation } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEntity,
  createRelation,
  getJson,
  newAccount,
  type Account,
} from '../../test/graph-fixtures.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import {
  expectNotFound,
  expectValidationError,
  MALFORMED_IDS,
} from '../../test/http-assertions.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
});

const entityIds = (graph: GraphData) => graph.entities.map((entity) => entity.id).sort();
const relationIds = (graph: GraphData) => graph.relations.map((relation) => relation.id).sort();
const sorted = (...ids: string[]) => [...ids].sort();

/** Every relation of the answer has both ends among its entities; no entity repeats. */
function expectClosed(graph: GraphData) {
  const ids = new Set(graph.entities.map((entity) => entity.id));
  expect(ids.size).toBe(graph.entities.length);
  for (const relation of graph.relations) {
    expect(ids.has(relation.fromEntityId), `${relation.fromEntityId} missing`).toBe(true);
    expect(ids.has(relation.toEntityId), `${relation.toEntityId} missing`).toBe(true);
  }
}

/** The relations of `all` whose two ends are both in the answer. */
function expectedRelations(graph: GraphData, all: Relation[]) {
  const ids = new Set(graph.entities.map((entity) => entity.id));
  return all
    .filter((relation) => ids.has(relation.fromEntityId) && ids.has(relation.toEntityId))
    .map((relation) => relation.id)
    .sort();
}

/**
 * Chain a → b → c → d, plus e → b (an edge coming in to b) and an isolated x.
 */
describe('GET /api/relations/graph/{id}', () => {
  let g: Account;
  let a: Entity, b: Entity, c: Entity, d: Entity, e: Entity, x: Entity;
  let ab: Relation, bc: Relation, cd: Relation, eb: Relation;
  beforeAll(async () => {
    g = await newAccount(t.app);
    a = await createEntity(g.req, { name: 'A', type: 'person', observations: ['one', 'two'] });
    b = await createEntity(g.req, { name: 'B', type: 'company' });
    c = await createEntity(g.req, { name: 'C', type: 'technology', observations: ['three'] });
    d = await createEntity(g.req, { name: 'D', type: 'concept' });
    e = await createEntity(g.req, { name: 'E', type: 'event' });
    x = await createEntity(g.req, { name: 'X', type: 'concept' });
    ab = await createRelation(g.req, a, b, 'next');
    bc = await createRelation(g.req, b, c, 'next');
    cd = await createRelation(g.req, c, d, 'next');
    eb = await createRelation(g.req, e, b, 'feeds');
  });

  const around = (entity: Entity, query = '') =>
    getJson<GraphData>(g.req, `/api/relations/graph/${entity.id}${query}`);

  it('returns entities {id, name, type, observationsCount} and relations {id, fromEntityId, toEntityId, relationType}', async () => {
    const graph = await around(a, '?depth=1');
    expect(Object.keys(graph).sort()).toEqual(['entities', 'relations']);
    expect(graph.entities.find((entity) => entity.id === a.id)).toEqual({
      id: a.id,
      name: 'A',
      type: 'person',
      observationsCount: 2,
    });
    expect(graph.entities.find((entity) => entity.id === b.id)).toEqual({
      id: b.id,
      name: 'B',
      type: 'company',
      observationsCount: 0,
    });
    expect(graph.relations).toHaveLength(1);
    expect(graph.relations[0]).toMatchObject({
      id: ab.id,
      fromEntityId: a.id,
      toEntityId: b.id,
      relationType: 'next',
    });
  });

  it('depth 1 from a: a and b', async () => {
    const graph = await around(a, '?depth=1');
    expect(entityIds(graph)).toEqual(sorted(a.id, b.id));
    expect(relationIds(graph)).toEqual(sorted(ab.id));
  });

  it('depth 2 from a: also c and e (e reaches b by an incoming edge)', async () => {
    const graph = await around(a, '?depth=2');
    expect(entityIds(graph)).toEqual(sorted(a.id, b.id, c.id, e.id));
    expect(relationIds(graph)).toEqual(sorted(ab.id, bc.id, eb.id));
  });

  it('depth 3 from a: the whole chain', async () => {
    const graph = await around(a, '?depth=3');
    expect(entityIds(graph)).toEqual(sorted(a.id, b.id, c.id, d.id, e.id));
    expect(relationIds(graph)).toEqual(sorted(ab.id, bc.id, cd.id, eb.id));
  });

  it('depth defaults to 2', async () => {
    expect(await around(a)).toEqual(await around(a, '?depth=2'));
  });

  it('walks both directions: depth 1 from b sees a, c and e; from d sees c', async () => {
    const fromB = await around(b, '?depth=1');
    expect(entityIds(fromB)).toEqual(sorted(a.id, b.id, c.id, e.id));
    expect(relationIds(fromB)).toEqual(sorted(ab.id, bc.id, eb.id));
    const fromD = await around(d, '?depth=1');
    expect(entityIds(fromD)).toEqual(sorted(c.id, d.id));
    expect(relationIds(fromD)).toEqual(sorted(cd.id));
    const fromDDeep = await around(d, '?depth=2');
    expect(entityIds(fromDDeep)).toEqual(sorted(b.id, c.id, d.id));
    expect(relationIds(fromDDeep)).toEqual(sorted(bc.id, cd.id));
  });

  it('an entity with no relations is alone in its graph, at any depth', async () => {
    expect(await around(x, '?depth=5')).toEqual({
      entities: [{ id: x.id, name: 'X', type: 'concept', observationsCount: 0 }],
      relations: [],
    });
  });

  it.each(['0', '6', '-1', '2.5', 'abc', ''])(
    'rejects depth=%j with 400 query.depth',
    async (depth) => {
      expectValidationError(
        await g.req({ method: 'GET', url: `/api/relations/graph/${a.id}?depth=${depth}` }),
        ['query.depth'],
      );
    },
  );

  it('accepts depth 5', async () => {
    expect(entityIds(await around(a, '?depth=5'))).toEqual(sorted(a.id, b.id, c.id, d.id, e.id));
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of [randomUUID(), ...MALFORMED_IDS]) {
      expectNotFound(
        await g.req({ method: 'GET', url: `/api/relations/graph/${encodeURIComponent(id)}` }),
      );
    }
  });

  it('forgets a deleted entity and its relations', async () => {
    const h = await newAccount(t.app);
    const p = await createEntity(h.req, { name: 'P' });
    const q = await createEntity(h.req, { name: 'Q' });
    const r = await createEntity(h.req, { name: 'R' });
    const s = await createEntity(h.req, { name: 'S' });
    await createRelation(h.req, p, q);
    await createRelation(h.req, q, r);
    await createRelation(h.req, r, s);
    await h.req({ method: 'DELETE', url: `/api/entities/${q.id}` });
    const fromP = await getJson<GraphData>(h.req, `/api/relations/graph/${p.id}?depth=5`);
    expect(fromP).toEqual({
      entities: [{ id: p.id, name: 'P', type: 'concept', observationsCount: 0 }],
      relations: [],
    });
    const fromR = await getJson<GraphData>(h.req, `/api/relations/graph/${r.id}?depth=5`);
    expect(entityIds(fromR)).toEqual(sorted(r.id, s.id));
  });
});

describe('GET /api/relations/graph/data with rootEntityId', () => {
  let g: Account;
  let a: Entity, b: Entity, c: Entity, d: Entity, e: Entity;
  let all: Relation[];
  beforeAll(async () => {
    g = await newAccount(t.app);
    a = await createEntity(g.req, { name: 'A', observations: ['o1'] });
    b = await createEntity(g.req, { name: 'B' });
    c = await createEntity(g.req, { name: 'C' });
    d = await createEntity(g.req, { name: 'D' });
    e = await createEntity(g.req, { name: 'E' });
    await createEntity(g.req, { name: 'Isolated' });
    all = [
      await createRelation(g.req, a, b, 'next'),
      await createRelation(g.req, b, c, 'next'),
      await createRelation(g.req, c, d, 'next'),
      await createRelation(g.req, e, b, 'feeds'),
    ];
  });

  const data = (query: string) => getJson<GraphData>(g.req, `/api/relations/graph/data?${query}`);

  it('returns the neighbourhood to depth', async () => {
    const one = await data(`rootEntityId=${a.id}&depth=1`);
    expect(entityIds(one)).toEqual(sorted(a.id, b.id));
    expect(relationIds(one)).toEqual(expectedRelations(one, all));
    expect(one.entities.find((entity) => entity.id === a.id)).toEqual({
      id: a.id,
      name: 'A',
      type: 'concept',
      observationsCount: 1,
    });

    const three = await data(`rootEntityId=${a.id}&depth=3`);
    expect(entityIds(three)).toEqual(sorted(a.id, b.id, c.id, d.id, e.id));
    expect(relationIds(three)).toEqual(all.map((relation) => relation.id).sort());
  });

  it('is the same answer as graph/{id} for the same depth', async () => {
    const viaData = await data(`rootEntityId=${c.id}&depth=2`);
    const viaId = await getJson<GraphData>(g.req, `/api/relations/graph/${c.id}?depth=2`);
    expect(entityIds(viaData)).toEqual(entityIds(viaId));
    expect(relationIds(viaData)).toEqual(relationIds(viaId));
  });

  it('returns at most limit entities, nearest first, and only relations among them', async () => {
    const two = await data(`rootEntityId=${a.id}&depth=3&limit=2`);
    expect(entityIds(two)).toEqual(sorted(a.id, b.id));
    expect(relationIds(two)).toEqual(sorted(all[0]!.id));

    const three = await data(`rootEntityId=${b.id}&depth=1&limit=3`);
    expect(three.entities).toHaveLength(3);
    expect(three.entities.map((entity) => entity.id)).toContain(b.id);
    for (const entity of three.entities) expect([a.id, b.id, c.id, e.id]).toContain(entity.id);
    expectClosed(three);
    expect(relationIds(three)).toEqual(expectedRelations(three, all));

    const one = await data(`rootEntityId=${d.id}&depth=5&limit=1`);
    expect(one).toEqual({
      entities: [{ id: d.id, name: 'D', type: 'concept', observationsCount: 0 }],
      relations: [],
    });
  });

  it('answers 404 for an unknown or malformed root', async () => {
    for (const id of [randomUUID(), ...MALFORMED_IDS]) {
      expectNotFound(
        await g.req({
          method: 'GET',
          url: `/api/relations/graph/data?rootEntityId=${encodeURIComponent(id)}`,
        }),
      );
    }
  });

  it('answers 404 for a root id over 200 characters', async () => {
    expectNotFound(
      await g.req({
        method: 'GET',
        url: `/api/relations/graph/data?rootEntityId=${'a'.repeat(201)}`,
      }),
    );
  });
});

describe('GET /api/relations/graph/data without a root', () => {
  let g: Account;
  let hub: Entity;
  let k: Entity;
  const spokes: Entity[] = [];
  const leaves: Entity[] = [];
  const isolated: Entity[] = [];
  const all: Relation[] = [];
  beforeAll(async () => {
    g = await newAccount(t.app);
    // Created so that neither creation order nor id order would put the hub first by luck.
    for (let i = 0; i < 3; i++) isolated.push(await createEntity(g.req, { name: `Isolated ${i}` }));
    for (let i = 0; i < 4; i++)
      spokes.push(await createEntity(g.req, { name: `Spoke ${i}`, type: 'spoke' }));
    k = await createEntity(g.req, { name: 'K', type: 'second' });
    for (let i = 0; i < 3; i++)
      leaves.push(await createEntity(g.req, { name: `Leaf ${i}`, type: 'leaf' }));
    hub = await createEntity(g.req, { name: 'Hub', type: 'hub', observations: ['central'] });
    for (const spoke of spokes) all.push(await createRelation(g.req, hub, spoke, 'links'));
    for (const leaf of leaves) all.push(await createRelation(g.req, leaf, k, 'points_at'));
  });

  const data = (query = '') => getJson<GraphData>(g.req, `/api/relations/graph/data${query}`);

  it('puts the best-connected entity first: limit=1 is the hub alone', async () => {
    expect(await data('?limit=1')).toEqual({
      entities: [{ id: hub.id, name: 'Hub', type: 'hub', observationsCount: 1 }],
      relations: [],
    });
  });

  it('fills a small limit from the hub’s neighbourhood, with only relations among them', async () => {
    const three = await data('?limit=3&depth=1');
    expect(three.entities).toHaveLength(3);
    expect(three.entities.map((entity) => entity.id)).toContain(hub.id);
    for (const entity of three.entities) {
      expect([hub.id, ...spokes.map((spoke) => spoke.id)]).toContain(entity.id);
    }
    expectClosed(three);
    expect(relationIds(three)).toEqual(expectedRelations(three, all));
    expect(three.relations).toHaveLength(2);
  });

  it('with a large limit returns every entity and every relation', async () => {
    const everything = [hub, k, ...spokes, ...leaves, ...isolated]
      .map((entity) => entity.id)
      .sort();
    for (const query of ['', '?limit=1000', '?limit=1000&depth=1', '?limit=12&depth=5']) {
      const graph = await data(query);
      expect(entityIds(graph)).toEqual(everything);
      expect(relationIds(graph)).toEqual(all.map((relation) => relation.id).sort());
      expect(graph.relations.every((relation) => relation.relationType.length > 0)).toBe(true);
    }
  });

  it('stays closed for every limit from 1 to 13 (the account has 12 entities)', async () => {
    for (let limit = 1; limit <= 13; limit++) {
      const graph = await data(`?limit=${limit}&depth=2`);
      expect(graph.entities).toHaveLength(Math.min(limit, 12));
      expectClosed(graph);
      expect(relationIds(graph)).toEqual(expectedRelations(graph, all));
      expect(graph.entities.map((entity) => entity.id)).toContain(hub.id);
    }
  });

  it.each([
    ['limit=1001', 'query.limit'],
    ['limit=0', 'query.limit'],
    ['limit=-3', 'query.limit'],
    ['depth=6', 'query.depth'],
    ['depth=0', 'query.depth'],
    ['rootEntityId=', 'query.rootEntityId'],
  ])('rejects %s with 400 naming %s', async (query, field) => {
    expectValidationError(
      await g.req({ method: 'GET', url: `/api/relations/graph/data?${query}` }),
      [field],
    );
  });

  it('keeps degrees up to date: deleting a spoke entity and a hub relation makes K the best-connected', async () => {
    const account = await newAccount(t.app);
    const h = await createEntity(account.req, { name: 'H' });
    const kk = await createEntity(account.req, { name: 'KK' });
    const hs: Entity[] = [];
    const hr: Relation[] = [];
    for (let i = 0; i < 4; i++) {
      const spoke = await createEntity(account.req, { name: `HS${i}` });
      hs.push(spoke);
      hr.push(await createRelation(account.req, h, spoke));
    }
    for (let i = 0; i < 3; i++) {
      await createRelation(account.req, await createEntity(account.req, { name: `KL${i}` }), kk);
    }
    const top = async () =>
      (await getJson<GraphData>(account.req, '/api/relations/graph/data?limit=1')).entities.map(
        (entity) => entity.name,
      );

    expect(await top()).toEqual(['H']); // H 4, KK 3
    await account.req({ method: 'DELETE', url: `/api/entities/${hs[0]!.id}` });
    await account.req({ method: 'DELETE', url: `/api/relations/${hr[1]!.id}` });
    expect(await top()).toEqual(['KK']); // H 2, KK 3
    await createRelation(account.req, h, kk, 'knows');
    expect(await top()).toEqual(['KK']); // H 3, KK 4
    await createRelation(account.req, h, hs[1]!, 'again');
    await createRelation(account.req, h, hs[2]!, 'again');
    expect(await top()).toEqual(['H']); // H 5, KK 4
  });
});
