import type { InjectOptions } from 'fastify';
import type { DeleteResult, Entity as GraphEntity, Relation, RelationList } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import type { Requester } from '../../test/graph-fixtures.js';

// Issue 58, item 10: a delete answers its call's seq (history's callSeq), and
// reverting that call brings back everything the delete took (docs/history.md).

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function ok<T>(rest: Requester, method: string, url: string, payload?: object): Promise<T> {
  const response = await rest({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json<T>();
}

async function graphOf(rest: Requester) {
  const ada = await ok<GraphEntity>(rest, 'POST', '/api/entities', {
    name: 'Ada',
    type: 'person',
    metadata: { born: 1815 },
    observations: ['Wrote the first program', 'Worked with Babbage'],
  });
  const engine = await ok<GraphEntity>(rest, 'POST', '/api/entities', {
    name: 'Analytical Engine',
    type: 'technology',
  });
  const babbage = await ok<GraphEntity>(rest, 'POST', '/api/entities', {
    name: 'Babbage',
    type: 'person',
  });
  const wrote = await ok<Relation>(rest, 'POST', '/api/relations', {
    fromEntityId: ada.id,
    toEntityId: engine.id,
    type: 'programmed',
  });
  const knew = await ok<Relation>(rest, 'POST', '/api/relations', {
    fromEntityId: babbage.id,
    toEntityId: ada.id,
    type: 'knew',
  });
  return { ada, engine, babbage, wrote, knew };
}

async function relationsOf(rest: Requester, entityId: string) {
  const list = await ok<RelationList>(rest, 'GET', `/api/relations?entityId=${entityId}`);
  return list.relations.map((relation) => relation.id).sort();
}

describe('a delete answers its callSeq, and reverting it undoes the delete', () => {
  it('brings an entity back with its observations, metadata and relations', async () => {
    const { token } = await signUp(t.app);
    const rest = as(t.app, token);
    const { ada, wrote, knew } = await graphOf(rest);

    const deleted = await ok<DeleteResult>(rest, 'DELETE', `/api/entities/${ada.id}`);
    expect(deleted).toEqual({ success: true, callSeq: expect.any(Number) });
    // callSeq names the call as history does: the entity_deleted change's callSeq.
    const changes = await ok<{ changes: { seq: number; callSeq: number; type: string }[] }>(
      rest,
      'GET',
      '/api/changes?limit=5',
    );
    const change = changes.changes.find((item) => item.type === 'entity_deleted');
    expect(change?.callSeq).toBe(deleted.callSeq);
    expect((await rest({ method: 'GET', url: `/api/entities/${ada.id}` })).statusCode).toBe(404);

    await ok(rest, 'POST', `/api/changes/${deleted.callSeq}/revert`);
    const back = await ok<GraphEntity>(rest, 'GET', `/api/entities/${ada.id}`);
    expect(back).toMatchObject({ name: 'Ada', type: 'person', metadata: { born: 1815 } });
    expect(back.observationsCount).toBe(2);
    expect(back.observations.map((observation) => observation.content).sort()).toEqual([
      'Worked with Babbage',
      'Wrote the first program',
    ]);
    expect(await relationsOf(rest, ada.id)).toEqual([wrote.id, knew.id].sort());
  });

  it('brings a relation back with its id, type and ends', async () => {
    const { token } = await signUp(t.app);
    const rest = as(t.app, token);
    const { ada, engine, wrote } = await graphOf(rest);

    const deleted = await ok<DeleteResult>(rest, 'DELETE', `/api/relations/${wrote.id}`);
    expect(deleted).toEqual({ success: true, callSeq: expect.any(Number) });
    expect(await relationsOf(rest, engine.id)).toEqual([]);

    await ok(rest, 'POST', `/api/changes/${deleted.callSeq}/revert`);
    const list = await ok<RelationList>(rest, 'GET', `/api/relations?entityId=${engine.id}`);
    expect(list.relations).toHaveLength(1);
    expect(list.relations[0]).toMatchObject({
      id: wrote.id,
      type: 'programmed',
      fromEntityId: ada.id,
      toEntityId: engine.id,
    });
  });

  it('answers no callSeq for a purge, which cannot be undone', async () => {
    const { token } = await signUp(t.app);
    const rest = as(t.app, token);
    const { babbage } = await graphOf(rest);
    const purged = await ok<object>(rest, 'DELETE', `/api/entities/${babbage.id}?purge=true`);
    expect(purged).toEqual({ success: true });
  });

  it('keeps 404 for an unknown entity or relation', async () => {
    const { token } = await signUp(t.app);
    const rest = as(t.app, token);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await rest({ method: 'DELETE', url: `/api/entities/${unknown}` })).statusCode).toBe(
      404,
    );
    expect((await rest({ method: 'DELETE', url: `/api/relations/${unknown}` })).statusCode).toBe(
      404,
    );
  });
});

describe('who may undo a delete', () => {
  it("refuses a viewer's revert with 403 and leaves the entity deleted", async () => {
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, 'team');
    const accountId = await accountIdOf(t, owner.user.id);
    const email = `viewer-${accountId.slice(0, 8)}@example.com`;
    const invited = await as(
      t.app,
      owner.token,
    )({ method: 'POST', url: '/api/members/invitations', payload: { email, role: 'viewer' } });
    const invitation = new URL(invited.json<{ url: string }>().url).hash.replace('#token=', '');
    const viewer = await signUp(t.app, { email });
    const accepted = await as(
      t.app,
      viewer.token,
    )({ method: 'POST', url: '/api/invitations/accept', payload: { token: invitation } });
    expect(accepted.statusCode, accepted.body).toBe(200);

    const inAccount =
      (token: string): Requester =>
      (options: InjectOptions) =>
        as(
          t.app,
          token,
        )({ ...options, headers: { ...options.headers, 'x-engram-account': accountId } });
    const rest = inAccount(owner.token);
    const asViewer = inAccount(viewer.token);

    const { ada } = await graphOf(rest);
    // A viewer cannot delete either.
    expect((await asViewer({ method: 'DELETE', url: `/api/entities/${ada.id}` })).statusCode).toBe(
      403,
    );
    const deleted = await ok<DeleteResult>(rest, 'DELETE', `/api/entities/${ada.id}`);
    const refused = await asViewer({
      method: 'POST',
      url: `/api/changes/${deleted.callSeq}/revert`,
    });
    expect(refused.statusCode).toBe(403);
    expect((await rest({ method: 'GET', url: `/api/entities/${ada.id}` })).statusCode).toBe(404);
    // The owner still can.
    await ok(rest, 'POST', `/api/changes/${deleted.callSeq}/revert`);
    expect((await rest({ method: 'GET', url: `/api/entities/${ada.id}` })).statusCode).toBe(200);
  });
});
