import { randomUUID } from 'node:crypto';
import type { Entity, Relation, RelationList, TypeList, TypeSummary } from '@engram/shared';
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

const ref = (entity: Entity) => ({ id: entity.id, name: entity.name, type: entity.type });

async function post(account: Account, payload: unknown) {
  return account.req({ method: 'POST', url: '/api/relations', payload: payload as object });
}

describe('POST /api/relations', () => {
  let a: Account;
  let ada: Entity;
  let acme: Entity;
  let rust: Entity;
  beforeAll(async () => {
    a = await newAccount(t.app);
    ada = await createEntity(a.req, { name: 'Ada', type: 'person' });
    acme = await createEntity(a.req, { name: 'Acme', type: 'company' });
    rust = await createEntity(a.req, { name: 'Rust', type: 'technology' });
  });

  it('creates the relation: 201 with both ends embedded and type = relationType (trimmed)', async () => {
    const response = await post(a, {
      fromEntityId: ada.id,
      toEntityId: acme.id,
      type: '  works_at ',
    });
    expect(response.statusCode).toBe(201);
    const relation = response.json<Relation>();
    expect(relation).toEqual({
      id: expect.stringMatching(UUID_RE),
      fromEntityId: ada.id,
      toEntityId: acme.id,
      type: 'works_at',
      relationType: 'works_at',
      createdAt: expect.any(String),
      fromEntity: ref(ada),
      toEntity: ref(acme),
    });
    expectIsoDate(relation.createdAt);
    const listed = await getJson<RelationList>(a.req, `/api/relations?entityId=${ada.id}`);
    expect(listed.relations).toContainEqual(relation);
  });

  it('refuses a relation from an entity to itself with 400', async () => {
    const response = await post(a, { fromEntityId: rust.id, toEntityId: rust.id, type: 'uses' });
    expectError(response, 400, 'VALIDATION_ERROR');
  });

  it.each([
    [
      'an unknown source (random uuid)',
      () => ({ fromEntityId: randomUUID(), toEntityId: acme.id }),
    ],
    ['an unknown target (random uuid)', () => ({ fromEntityId: ada.id, toEntityId: randomUUID() })],
    ['a malformed source id', () => ({ fromEntityId: 'not-a-uuid', toEntityId: acme.id })],
    [
      'a sql-ish target id',
      () => ({ fromEntityId: ada.id, toEntityId: "'; DROP TABLE relations; --" }),
    ],
    ['two unknown ends', () => ({ fromEntityId: randomUUID(), toEntityId: randomUUID() })],
  ])('answers 404 NOT_FOUND for %s', async (_label, ends) => {
    const response = await post(a, { ...ends(), type: 'relates_to' });
    expectNotFound(response);
  });

  it.each(MALFORMED_IDS)('answers 404 for the malformed source id %j', async (id) => {
    expectNotFound(await post(a, { fromEntityId: id, toEntityId: acme.id, type: 'x' }));
  });

  it('answers 404 for an unknown entity id over 200 characters', async () => {
    expectNotFound(
      await post(a, { fromEntityId: 'a'.repeat(201), toEntityId: acme.id, type: 'x' }),
    );
  });

  it('refuses a duplicate (same ends and type) with 409; other directions and types are fine', async () => {
    await createRelation(a.req, rust, acme, 'used_by');
    const duplicate = await post(a, {
      fromEntityId: rust.id,
      toEntityId: acme.id,
      type: ' used_by ',
    });
    expectError(duplicate, 409, 'CONFLICT');
    expect(
      (await post(a, { fromEntityId: acme.id, toEntityId: rust.id, type: 'used_by' })).statusCode,
    ).toBe(201);
    expect(
      (await post(a, { fromEntityId: rust.id, toEntityId: acme.id, type: 'sponsored_by' }))
        .statusCode,
    ).toBe(201);
    const between = await getJson<RelationList>(
      a.req,
      `/api/relations?entityId=${rust.id}&relationTypes=used_by`,
    );
    expect(between.total).toBe(2);
  });

  it.each([
    ['a missing type', { type: undefined }, ['body.type']],
    ['a blank type', { type: '   ' }, ['body.type']],
    ['a numeric type', { type: 7 }, ['body.type']],
    ['a type over 100 characters', { type: 'x'.repeat(101) }, ['body.type']],
    ['a missing source', { fromEntityId: undefined }, ['body.fromEntityId']],
    ['an empty target', { toEntityId: '' }, ['body.toEntityId']],
    ['a numeric target', { toEntityId: 12 }, ['body.toEntityId']],
  ])('rejects %s with 400 naming the field', async (_label, override, fields) => {
    const payload = { fromEntityId: ada.id, toEntityId: rust.id, type: 'knows', ...override };
    expectValidationError(await post(a, payload), fields);
  });

  it('rejects an empty body naming all three fields', async () => {
    expectValidationError(await post(a, {}), ['body.fromEntityId', 'body.toEntityId', 'body.type']);
  });
});

describe('GET /api/relations', () => {
  let a: Account;
  let ada: Entity;
  let bob: Entity;
  let acme: Entity;
  let rust: Entity;
  const rel: Record<string, Relation> = {};
  beforeAll(async () => {
    a = await newAccount(t.app);
    ada = await createEntity(a.req, { name: 'Ada', type: 'person' });
    bob = await createEntity(a.req, { name: 'Bob', type: 'person' });
    acme = await createEntity(a.req, { name: 'Acme Corp', type: 'company' });
    rust = await createEntity(a.req, { name: 'Rust', type: 'technology' });
    rel.adaAcme = await createRelation(a.req, ada, acme, 'works_at');
    rel.bobAcme = await createRelation(a.req, bob, acme, 'works_at');
    rel.acmeRust = await createRelation(a.req, acme, rust, 'uses');
    rel.adaBob = await createRelation(a.req, ada, bob, 'part_of');
    rel.bobRust = await createRelation(a.req, bob, rust, 'partXof');
  });

  const ids = (list: RelationList) => list.relations.map((relation) => relation.id);

  it('returns {relations, total}, newest first, each with both ends', async () => {
    const list = await getJson<RelationList>(a.req, '/api/relations');
    expect(Object.keys(list).sort()).toEqual(['nextOffset', 'relations', 'total', 'truncated']);
    expect(list.total).toBe(5);
    expect(list.relations).toEqual([
      rel.bobRust,
      rel.adaBob,
      rel.acmeRust,
      rel.bobAcme,
      rel.adaAcme,
    ]);
    for (const relation of list.relations) expect(relation.type).toBe(relation.relationType);
  });

  it('query matches either end’s name or the type, case-insensitively', async () => {
    const byName = await getJson<RelationList>(a.req, '/api/relations?query=ACME');
    expect(ids(byName)).toEqual([rel.acmeRust!.id, rel.bobAcme!.id, rel.adaAcme!.id]);
    expect(byName.total).toBe(3);
    const byTarget = await getJson<RelationList>(a.req, '/api/relations?query=rus');
    expect(ids(byTarget)).toEqual([rel.bobRust!.id, rel.acmeRust!.id]);
    const byType = await getJson<RelationList>(a.req, '/api/relations?query=WORKS');
    expect(ids(byType)).toEqual([rel.bobAcme!.id, rel.adaAcme!.id]);
    expect(await getJson<RelationList>(a.req, '/api/relations?query=zzz')).toEqual({
      relations: [],
      total: 0,
      nextOffset: null,
      truncated: false,
    });
  });

  it('query treats LIKE wildcards literally', async () => {
    const underscore = await getJson<RelationList>(a.req, '/api/relations?query=t_o');
    expect(ids(underscore)).toEqual([rel.adaBob!.id]);
    const percent = await getJson<RelationList>(
      a.req,
      `/api/relations?query=${encodeURIComponent('%')}`,
    );
    expect(percent).toEqual({ relations: [], total: 0, nextOffset: null, truncated: false });
  });

  it('relationTypes is comma separated and exact', async () => {
    const two = await getJson<RelationList>(a.req, '/api/relations?relationTypes=uses,part_of');
    expect(ids(two)).toEqual([rel.adaBob!.id, rel.acmeRust!.id]);
    expect(two.total).toBe(2);
    const partial = await getJson<RelationList>(a.req, '/api/relations?relationTypes=works');
    expect(partial).toEqual({ relations: [], total: 0, nextOffset: null, truncated: false });
  });

  it('entityId keeps relations touching the entity in either direction', async () => {
    const aroundBob = await getJson<RelationList>(a.req, `/api/relations?entityId=${bob.id}`);
    expect(ids(aroundBob)).toEqual([rel.bobRust!.id, rel.adaBob!.id, rel.bobAcme!.id]);
    expect(aroundBob.total).toBe(3);
    const combined = await getJson<RelationList>(
      a.req,
      `/api/relations?entityId=${bob.id}&relationTypes=works_at`,
    );
    expect(ids(combined)).toEqual([rel.bobAcme!.id]);
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expect(
        await getJson<RelationList>(a.req, `/api/relations?entityId=${encodeURIComponent(id)}`),
      ).toEqual({
        relations: [],
        total: 0,
        nextOffset: null,
        truncated: false,
      });
    }
  });

  it('pages with limit/offset; total counts all matches', async () => {
    const first = await getJson<RelationList>(a.req, '/api/relations?limit=2');
    const second = await getJson<RelationList>(a.req, '/api/relations?limit=2&offset=2');
    const third = await getJson<RelationList>(a.req, '/api/relations?limit=2&offset=4');
    expect([first.total, second.total, third.total]).toEqual([5, 5, 5]);
    expect([...ids(first), ...ids(second), ...ids(third)]).toEqual([
      rel.bobRust!.id,
      rel.adaBob!.id,
      rel.acmeRust!.id,
      rel.bobAcme!.id,
      rel.adaAcme!.id,
    ]);
    expect(await getJson<RelationList>(a.req, '/api/relations?offset=50')).toEqual({
      relations: [],
      total: 5,
      nextOffset: null,
      truncated: false,
    });
    expect(await getJson<RelationList>(a.req, '/api/relations?offset=50&query=acme')).toEqual({
      relations: [],
      total: 3,
      nextOffset: null,
      truncated: false,
    });
  });

  it('query combines with relationTypes and with entityId, and pages like the full list', async () => {
    const typed = await getJson<RelationList>(
      a.req,
      '/api/relations?query=acme&relationTypes=uses,part_of',
    );
    expect(ids(typed)).toEqual([rel.acmeRust!.id]);
    expect(typed.total).toBe(1);
    const aroundBob = await getJson<RelationList>(
      a.req,
      `/api/relations?entityId=${bob.id}&query=RUST`,
    );
    expect(ids(aroundBob)).toEqual([rel.bobRust!.id]);
    const byTypeAroundBob = await getJson<RelationList>(
      a.req,
      `/api/relations?entityId=${bob.id}&query=part`,
    );
    expect(ids(byTypeAroundBob)).toEqual([rel.bobRust!.id, rel.adaBob!.id]);

    const first = await getJson<RelationList>(a.req, '/api/relations?query=a&limit=2');
    const rest = await getJson<RelationList>(
      a.req,
      `/api/relations?query=a&limit=2&offset=${first.nextOffset}`,
    );
    expect(first.nextOffset).toBe(2);
    expect([first.total, rest.total]).toEqual([5, 5]);
    expect([...ids(first), ...ids(rest)]).toEqual([
      rel.bobRust!.id,
      rel.adaBob!.id,
      rel.acmeRust!.id,
      rel.bobAcme!.id,
    ]);
  });

  it('query never reaches another account: its names and types match nothing here', async () => {
    const other = await newAccount(t.app);
    const zed = await createEntity(other.req, { name: 'Zed Acme', type: 'person' });
    const zoe = await createEntity(other.req, { name: 'Zoe', type: 'person' });
    await createRelation(other.req, zed, zoe, 'mentors_only_there');
    expect(ids(await getJson<RelationList>(a.req, '/api/relations?query=zed'))).toEqual([]);
    expect(ids(await getJson<RelationList>(a.req, '/api/relations?query=mentors_only'))).toEqual(
      [],
    );
    const acme = await getJson<RelationList>(a.req, '/api/relations?query=acme');
    expect(acme.total).toBe(3);
    const theirs = await getJson<RelationList>(other.req, '/api/relations?query=acme');
    expect(theirs.total).toBe(1);
    expect(theirs.relations[0]!.fromEntity.name).toBe('Zed Acme');
  });

  it.each([
    ['limit=1001', 'query.limit'],
    ['limit=0', 'query.limit'],
    ['limit=NaN', 'query.limit'],
    ['offset=-1', 'query.offset'],
    [`query=${'q'.repeat(501)}`, 'query.query'],
  ])('rejects %s with 400 naming %s', async (queryString, field) => {
    expectValidationError(await a.req({ method: 'GET', url: `/api/relations?${queryString}` }), [
      field,
    ]);
  });

  it('GET /api/relations/types counts relation types, most common first', async () => {
    const types = (await getJson<TypeList>(a.req, '/api/relations/types')).types;
    expect(types[0]).toEqual({ type: 'works_at', label: 'Works at', count: 2 });
    // The ties' order follows the database collation; compare them as a set.
    const byType = (x: TypeSummary, y: TypeSummary) => (x.type < y.type ? -1 : 1);
    expect(types.slice(1).sort(byType)).toEqual([
      { type: 'partXof', label: 'PartXof', count: 1 },
      { type: 'part_of', label: 'Part of', count: 1 },
      { type: 'uses', label: 'Uses', count: 1 },
    ]);
  });
});

describe('PUT /api/relations/{id}', () => {
  let a: Account;
  let ada: Entity;
  let acme: Entity;
  beforeAll(async () => {
    a = await newAccount(t.app);
    ada = await createEntity(a.req, { name: 'Ada', type: 'person' });
    acme = await createEntity(a.req, { name: 'Acme', type: 'company' });
  });

  it('changes only the type; id, ends and createdAt stay', async () => {
    const relation = await createRelation(a.req, ada, acme, 'works_at');
    const response = await a.req({
      method: 'PUT',
      url: `/api/relations/${relation.id}`,
      payload: { type: ' founded ', fromEntityId: acme.id, toEntityId: ada.id },
    });
    expect(response.statusCode).toBe(200);
    const updated = response.json<Relation>();
    expect(updated).toEqual({ ...relation, type: 'founded', relationType: 'founded' });
    const listed = await getJson<RelationList>(a.req, `/api/relations?relationTypes=founded`);
    expect(listed.relations).toEqual([updated]);
    expect(
      (await getJson<RelationList>(a.req, '/api/relations?relationTypes=works_at')).total,
    ).toBe(0);
  });

  it('accepts the unchanged type', async () => {
    const relation = await createRelation(a.req, acme, ada, 'employs');
    const response = await a.req({
      method: 'PUT',
      url: `/api/relations/${relation.id}`,
      payload: { type: 'employs' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(relation);
  });

  it('refuses a type that would duplicate another relation with 409', async () => {
    await createRelation(a.req, ada, acme, 'owns');
    const other = await createRelation(a.req, ada, acme, 'advises');
    const response = await a.req({
      method: 'PUT',
      url: `/api/relations/${other.id}`,
      payload: { type: 'owns' },
    });
    expectError(response, 409, 'CONFLICT');
    const still = await getJson<RelationList>(a.req, `/api/relations?relationTypes=advises`);
    expect(still.relations).toEqual([other]);
  });

  it('validates the type', async () => {
    const relation = await createRelation(a.req, ada, acme, 'likes');
    const url = `/api/relations/${relation.id}`;
    expectValidationError(await a.req({ method: 'PUT', url, payload: {} }), ['body.type']);
    expectValidationError(await a.req({ method: 'PUT', url, payload: { type: '  ' } }), [
      'body.type',
    ]);
    expectValidationError(await a.req({ method: 'PUT', url, payload: { type: ['x'] } }), [
      'body.type',
    ]);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of [randomUUID(), ...MALFORMED_IDS]) {
      expectNotFound(
        await a.req({
          method: 'PUT',
          url: `/api/relations/${encodeURIComponent(id)}`,
          payload: { type: 'x' },
        }),
      );
    }
  });

  it('answers 404 for an entity id used as a relation id', async () => {
    expectNotFound(
      await a.req({ method: 'PUT', url: `/api/relations/${ada.id}`, payload: { type: 'x' } }),
    );
  });
});

describe('DELETE /api/relations/{id}', () => {
  it('deletes the relation only; its ends stay', async () => {
    const a = await newAccount(t.app);
    const x = await createEntity(a.req, { name: 'X' });
    const y = await createEntity(a.req, { name: 'Y' });
    const keep = await createRelation(a.req, y, x, 'keeps');
    const relation = await createRelation(a.req, x, y, 'goes');

    const response = await a.req({ method: 'DELETE', url: `/api/relations/${relation.id}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, callSeq: expect.any(Number) });

    expectNotFound(await a.req({ method: 'DELETE', url: `/api/relations/${relation.id}` }));
    expectNotFound(
      await a.req({ method: 'PUT', url: `/api/relations/${relation.id}`, payload: { type: 'x' } }),
    );
    const list = await getJson<RelationList>(a.req, '/api/relations');
    expect(list).toEqual({ relations: [keep], total: 1, nextOffset: null, truncated: false });
    expect((await getJson<Entity>(a.req, `/api/entities/${x.id}`)).name).toBe('X');
    expect((await getJson<Entity>(a.req, `/api/entities/${y.id}`)).name).toBe('Y');
    // The same relation can be created again.
    await createRelation(a.req, x, y, 'goes');
  });

  it('answers 404 for unknown and malformed ids', async () => {
    const a = await newAccount(t.app);
    for (const id of [randomUUID(), ...MALFORMED_IDS]) {
      expectNotFound(
        await a.req({ method: 'DELETE', url: `/api/relations/${encodeURIComponent(id)}` }),
      );
    }
  });

  it('accepts DELETE with a JSON content type and no body', async () => {
    const a = await newAccount(t.app);
    const x = await createEntity(a.req, { name: 'X' });
    const y = await createEntity(a.req, { name: 'Y' });
    const relation = await createRelation(a.req, x, y, 'goes');
    const response = await a.req({
      method: 'DELETE',
      url: `/api/relations/${relation.id}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode, response.body).toBe(200);
  });
});
