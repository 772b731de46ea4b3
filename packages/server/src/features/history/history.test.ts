import type { Entity, EntityList, GraphData, HistoryPage, RevertResult } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, callToolError, connectMcp } from '../../test/mcp-client.js';
import {
  accountIdOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import type { Requester } from '../../test/graph-fixtures.js';

// Issue 39: every change kept as history — reads as of any change, each
// entity's changes, reverting a call, undo_last, purge and retention.

const clock = manualClock(new Date('2026-11-01T12:00:00Z'));
let t: TestApp;
let baseUrl: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const close of closers) await close();
  await t?.close();
});

async function account() {
  const { token, user } = await signUp(t.app);
  const rest = as(t.app, token);
  const key = (await rest({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })).json<{
    apiKey: string;
  }>().apiKey;
  return { rest, key, userId: user.id };
}

async function ok<T>(rest: Requester, method: string, url: string, payload?: object): Promise<T> {
  const response = await rest({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json<T>();
}

async function latestSeq(rest: Requester): Promise<number> {
  const page = await ok<HistoryPage>(rest, 'GET', '/api/changes?limit=1');
  return page.changes[0]?.seq ?? 0;
}

/** The space's whole graph, by names: what a read as of then must equal. */
async function snapshot(rest: Requester, asOf?: string) {
  const suffix = asOf ? `&asOf=${encodeURIComponent(asOf)}` : '';
  const list = await ok<EntityList>(rest, 'GET', `/api/entities?limit=1000${suffix}`);
  const graph = await ok<GraphData>(rest, 'GET', `/api/relations/graph/data?limit=1000${suffix}`);
  const names = new Map(list.entities.map((entity) => [entity.id, entity.name]));
  return {
    entities: list.entities
      .map((entity) => ({
        name: entity.name,
        type: entity.type,
        metadata: entity.metadata,
        observations: entity.observations.map((observation) => observation.content),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    relations: graph.relations
      .map(
        (edge) => `${names.get(edge.fromEntityId)} -${edge.type}-> ${names.get(edge.toEntityId)}`,
      )
      .sort(),
    nodes: graph.entities.map((node) => node.name).sort(),
  };
}

/** A small deterministic generator, so a failing sequence can be replayed from its seed. */
function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return (state >>> 8) % n;
  };
}

describe('asOf', () => {
  it.each([1, 2, 3])(
    'answers the graph as it was after every change of a random sequence (seed %i)',
    async (seed) => {
      const { rest } = await account();
      const next = random(seed);
      const live: Entity[] = [];
      const points: { seq: number; state: Awaited<ReturnType<typeof snapshot>> }[] = [];
      for (let step = 0; step < 30; step += 1) {
        const choice = live.length < 2 ? 0 : next(8);
        const pick = () => live[next(live.length)]!;
        if (choice === 0) {
          live.push(
            await ok<Entity>(rest, 'POST', '/api/entities', {
              name: `e${seed}-${step}`,
              type: ['person', 'project'][next(2)],
              observations: [`fact ${step}`, `detail ${next(100)}`],
              metadata: { step },
            }),
          );
        } else if (choice === 1) {
          const entity = pick();
          const renamed = await ok<Entity>(rest, 'PUT', `/api/entities/${entity.id}`, {
            name: `${entity.name}r`,
            type: 'renamed',
            metadata: { renamedAt: step, b: 1 },
          });
          live[live.indexOf(entity)] = renamed;
        } else if (choice === 2) {
          await ok(rest, 'POST', `/api/entities/${pick().id}/observations`, {
            observations: [`added ${step}`],
          });
        } else if (choice === 3) {
          const entity = pick();
          await ok(rest, 'PUT', `/api/entities/${entity.id}`, {
            name: entity.name,
            type: entity.type,
            observations: [`only ${step}`],
          });
        } else if (choice === 4 || choice === 5) {
          const from = pick();
          const to = pick();
          if (from.id === to.id) continue;
          await rest({
            method: 'POST',
            url: '/api/relations',
            payload: { fromEntityId: from.id, toEntityId: to.id, type: `r${next(3)}` },
          });
        } else if (choice === 6) {
          const graph = await ok<GraphData>(rest, 'GET', '/api/relations/graph/data?limit=1000');
          const edge = graph.relations[next(Math.max(1, graph.relations.length))];
          if (!edge) continue;
          await ok(rest, 'DELETE', `/api/relations/${edge.id}`);
        } else {
          const entity = pick();
          await ok(rest, 'DELETE', `/api/entities/${entity.id}`);
          live.splice(live.indexOf(entity), 1);
        }
        points.push({ seq: await latestSeq(rest), state: await snapshot(rest) });
      }
      for (const point of points) {
        expect(await snapshot(rest, `seq:${point.seq}`), `as of seq:${point.seq}`).toEqual(
          point.state,
        );
      }
    },
  );

  it('takes a time, and refuses one it cannot answer with 400 naming asOf', async () => {
    const { rest } = await account();
    const first = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Early', type: 'x' });
    const between = clock.now().toISOString();
    clock.advanceMs(60_000);
    await ok(rest, 'PUT', `/api/entities/${first.id}`, { name: 'Later', type: 'x' });
    const then = await ok<Entity>(rest, 'GET', `/api/entities/${first.id}?asOf=${between}`);
    expect(then.name).toBe('Early');
    const now = await ok<Entity>(rest, 'GET', `/api/entities/${first.id}`);
    expect(now.name).toBe('Later');

    const bad = await rest({ method: 'GET', url: `/api/entities/${first.id}?asOf=yesterday` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('query.asOf');
    // Before it was created: the entity did not exist then.
    const before = await rest({
      method: 'GET',
      url: `/api/entities/${first.id}?asOf=2020-01-01T00:00:00Z`,
    });
    expect(before.statusCode).toBe(404);
    const absent = await rest({ method: 'GET', url: `/api/entities/${first.id}?asOf=seq:0` });
    expect(absent.statusCode).toBe(404);
    const around = await ok<GraphData>(
      rest,
      'GET',
      `/api/relations/graph/${first.id}?asOf=${encodeURIComponent(between)}`,
    );
    expect(around.entities.map((node) => node.name)).toEqual(['Early']);
    const aroundBefore = await rest({
      method: 'GET',
      url: `/api/relations/graph/${first.id}?asOf=seq:0`,
    });
    expect(aroundBefore.statusCode).toBe(404);
  });

  it('reads through MCP: open_nodes, search_nodes, read_graph and recall as of a seq', async () => {
    const { rest, key } = await account();
    const mcp = await connectMcp(baseUrl, key);
    closers.push(() => mcp.close());
    await callTool(mcp, 'create_entities', {
      entities: [{ name: 'Maya', entityType: 'person', observations: ['works at Acme'] }],
    });
    const seq = await latestSeq(rest);
    await callTool(mcp, 'delete_observations', {
      deletions: [{ entityName: 'Maya', observations: ['works at Acme'] }],
    });
    await callTool(mcp, 'add_observations', {
      observations: [{ entityName: 'Maya', contents: ['works at Globex'] }],
    });
    const then = await callTool<{ entities: { observations: string[] }[] }>(mcp, 'open_nodes', {
      names: ['Maya'],
      asOf: `seq:${seq}`,
    });
    expect(then.entities[0]!.observations).toEqual(['works at Acme']);
    const now = await callTool<{ entities: { observations: string[] }[] }>(mcp, 'open_nodes', {
      names: ['Maya'],
    });
    expect(now.entities[0]!.observations).toEqual(['works at Globex']);
    const found = await callTool<{ entities: unknown[] }>(mcp, 'search_nodes', {
      query: 'acme',
      asOf: `seq:${seq}`,
    });
    expect(found.entities).toHaveLength(1);
    const recalled = await callTool<{ results: { observation: string; entityName: string }[] }>(
      mcp,
      'recall',
      { query: 'Where does Maya work?', asOf: `seq:${seq}` },
    );
    expect(recalled.results.map((result) => result.observation)).toEqual(['works at Acme']);
    const recalledNow = await callTool<{ results: { observation: string }[] }>(mcp, 'recall', {
      query: 'Where does Maya work?',
    });
    expect(recalledNow.results.map((result) => result.observation)).toContain('works at Globex');
    expect(recalledNow.results.map((result) => result.observation)).not.toContain('works at Acme');
    const graph = await callTool<{ entities: unknown[] }>(mcp, 'read_graph', { asOf: 'seq:0' });
    expect(graph.entities).toHaveLength(0);
    expect(await callToolError(mcp, 'read_graph', { asOf: 'last week' })).toMatch(/asOf/);
  });
});

describe('history and revert', () => {
  it("lists an entity's changes newest first, with who, before and after", async () => {
    const { rest, userId } = await account();
    const ada = await ok<Entity>(rest, 'POST', '/api/entities', {
      name: 'Ada',
      type: 'person',
      observations: ['mathematician'],
    });
    const bob = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Bob', type: 'person' });
    await ok(rest, 'PUT', `/api/entities/${ada.id}`, { name: 'Ada L.', type: 'person' });
    await ok(rest, 'POST', `/api/entities/${ada.id}/observations`, { observations: ['poet'] });
    await ok(rest, 'POST', '/api/relations', {
      fromEntityId: bob.id,
      toEntityId: ada.id,
      type: 'knows',
    });
    const page = await ok<HistoryPage>(rest, 'GET', `/api/entities/${ada.id}/history`);
    expect(page.changes.map((change) => change.type)).toEqual([
      'relation_created',
      'observation_added',
      'entity_updated',
      'entity_created',
    ]);
    const [related, added, renamed, created] = page.changes;
    expect(related!.after).toMatchObject({
      fromEntityName: 'Bob',
      toEntityName: 'Ada L.',
      relationType: 'knows',
    });
    expect(related!.before).toBeNull();
    expect(added!.after).toMatchObject({ observations: [{ content: 'poet' }] });
    expect(added!.before).toMatchObject({ name: 'Ada L.', observations: [] });
    expect(renamed!.before).toMatchObject({ name: 'Ada' });
    expect(renamed!.after).toMatchObject({ name: 'Ada L.' });
    expect(created!.after).toMatchObject({
      name: 'Ada',
      observations: [{ content: 'mathematician' }],
    });
    expect(created!.actor).toEqual({
      kind: 'user',
      id: userId,
      name: 'Ada Lovelace',
      user: { id: userId, name: 'Ada Lovelace' },
    });

    const first = await ok<HistoryPage>(rest, 'GET', `/api/entities/${ada.id}/history?limit=2`);
    expect(first.changes).toHaveLength(2);
    const second = await ok<HistoryPage>(
      rest,
      'GET',
      `/api/entities/${ada.id}/history?limit=2&cursor=${first.nextCursor}`,
    );
    expect(second.changes.map((change) => change.seq)).toEqual(
      page.changes.slice(2).map((change) => change.seq),
    );
  });

  it('reverts a rename, a delete (with observations and relations) and answers 409 on a conflict', async () => {
    const { rest } = await account();
    const ada = await ok<Entity>(rest, 'POST', '/api/entities', {
      name: 'Ada',
      type: 'person',
      observations: ['one', 'two'],
    });
    const bob = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Bob', type: 'person' });
    await ok(rest, 'POST', '/api/relations', {
      fromEntityId: ada.id,
      toEntityId: bob.id,
      type: 'knows',
    });

    await ok(rest, 'PUT', `/api/entities/${ada.id}`, { name: 'Ada L.', type: 'person' });
    const renameSeq = await latestSeq(rest);
    const reverted = await ok<RevertResult>(rest, 'POST', `/api/changes/${renameSeq}/revert`);
    expect(reverted.reverted).toEqual({ callSeq: renameSeq, changes: 1 });
    expect((await ok<Entity>(rest, 'GET', `/api/entities/${ada.id}`)).name).toBe('Ada');

    const before = await snapshot(rest);
    await ok(rest, 'DELETE', `/api/entities/${ada.id}`);
    const deleteSeq = await latestSeq(rest);
    await ok(rest, 'POST', `/api/changes/${deleteSeq}/revert`);
    expect(await snapshot(rest)).toEqual(before);
    const back = await ok<Entity>(rest, 'GET', `/api/entities/${ada.id}`);
    expect(back.observations.map((o) => o.content)).toEqual(['one', 'two']);

    await ok(rest, 'PUT', `/api/entities/${bob.id}`, { name: 'Bobby', type: 'person' });
    const first = await latestSeq(rest);
    await ok(rest, 'PUT', `/api/entities/${bob.id}`, { name: 'Robert', type: 'person' });
    const conflict = await rest({ method: 'POST', url: `/api/changes/${first}/revert` });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().details[0]).toEqual({
      field: `entity:${bob.id}`,
      message: expect.stringMatching(/changed at seq:\d+, after this call/),
    });
    expect((await ok<Entity>(rest, 'GET', `/api/entities/${bob.id}`)).name).toBe('Robert');

    expect((await rest({ method: 'POST', url: '/api/changes/999999/revert' })).statusCode).toBe(
      404,
    );
    expect((await rest({ method: 'POST', url: '/api/changes/abc/revert' })).statusCode).toBe(400);
  });

  it("reverts a whole batch, and another account's change is a 404", async () => {
    const { rest, key, userId } = await account();
    const mcp = await connectMcp(baseUrl, key);
    closers.push(() => mcp.close());
    await callTool(mcp, 'create_entities', {
      entities: ['A', 'B', 'C'].map((name) => ({ name, entityType: 'x', observations: [] })),
    });
    const page = await ok<HistoryPage>(rest, 'GET', '/api/changes');
    expect(page.changes).toHaveLength(3);
    expect(new Set(page.changes.map((change) => change.callSeq)).size).toBe(1);
    // The key, and the person who made it.
    expect(page.changes[0]!.actor).toMatchObject({
      kind: 'api_key',
      name: 'agent',
      user: { id: userId, name: 'Ada Lovelace' },
    });
    const middle = page.changes[1]!.seq;

    const other = await account();
    expect(
      (await other.rest({ method: 'POST', url: `/api/changes/${middle}/revert` })).statusCode,
    ).toBe(404);

    const result = await ok<RevertResult>(rest, 'POST', `/api/changes/${middle}/revert`);
    expect(result.reverted.changes).toBe(3);
    expect(result.seqs).toHaveLength(3);
    expect((await ok<EntityList>(rest, 'GET', '/api/entities')).total).toBe(0);
  });

  it("undo_last undoes only its own credential's calls, newest first", async () => {
    const { rest, key } = await account();
    const mcp = await connectMcp(baseUrl, key);
    closers.push(() => mcp.close());
    await callTool(mcp, 'create_entities', {
      entities: [{ name: 'Kept', entityType: 'x', observations: [] }],
    });
    await callTool(mcp, 'add_observations', {
      observations: [{ entityName: 'Kept', contents: ['a mistake'] }],
    });
    // A person's change in between is not the agent's to undo.
    await ok(rest, 'POST', '/api/entities', { name: 'Person made', type: 'x' });

    await callTool(mcp, 'undo_last');
    const kept = await callTool<{ entities: { observations: string[] }[] }>(mcp, 'open_nodes', {
      names: ['Kept', 'Person made'],
    });
    expect(kept.entities).toHaveLength(2);
    expect(kept.entities[0]!.observations).toEqual([]);
    await callTool(mcp, 'undo_last');
    const after = await callTool<{ entities: { name: string }[] }>(mcp, 'read_graph');
    expect(after.entities.map((entity) => entity.name)).toEqual(['Person made']);
    expect(await callToolError(mcp, 'undo_last')).toMatch(/Nothing to undo/);
  });

  it('purges an entity with its history; the events keep no text of it', async () => {
    const { rest } = await account();
    const ada = await ok<Entity>(rest, 'POST', '/api/entities', {
      name: 'Secret',
      type: 'person',
      observations: ['private fact'],
    });
    const bad = await rest({ method: 'DELETE', url: `/api/entities/${ada.id}?purge=yes` });
    expect(bad.statusCode).toBe(400);
    await ok(rest, 'DELETE', `/api/entities/${ada.id}?purge=true`);
    expect((await rest({ method: 'GET', url: `/api/entities/${ada.id}/history` })).statusCode).toBe(
      404,
    );
    const changes = await ok<HistoryPage>(rest, 'GET', '/api/changes');
    expect(JSON.stringify(changes)).not.toMatch(/private fact/);
    const [{ rows }] = [
      await t.database.db
        .selectFrom('graph_events')
        .select(['payload'])
        .where('type', '=', 'observation_added')
        .execute()
        .then((rows) => ({ rows })),
    ];
    expect(JSON.stringify(rows)).not.toMatch(/private fact/);
  });

  it('counts history toward storage, and compacts it with the change log', async () => {
    const { rest, userId } = await account();
    const accountId = await accountIdOf(t, userId);
    const entity = await ok<Entity>(rest, 'POST', '/api/entities', {
      name: 'Old',
      type: 'x',
      observations: ['x'.repeat(2000)],
    });
    const bytes = async () =>
      t.database.db
        .selectFrom('accounts')
        .select(['stored_bytes', 'history_bytes'])
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow();
    const before = await bytes();
    await ok(rest, 'DELETE', `/api/entities/${entity.id}`);
    const deleted = await bytes();
    expect(Number(deleted.history_bytes)).toBeGreaterThan(Number(before.history_bytes) + 2000);

    const seqBefore = await latestSeq(rest);
    clock.advanceDays(8);
    await ok(rest, 'POST', '/api/entities', { name: 'New', type: 'x' });
    await t.runtime.history.changeLog.runOnce();
    const compacted = await bytes();
    expect(Number(compacted.history_bytes)).toBeLessThan(1000);
    const refused = await rest({ method: 'GET', url: `/api/entities?asOf=seq:${seqBefore - 1}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatch(/earlier than the history this account keeps/);
  });
});

describe('validity: when a fact held in the world', () => {
  it('is set through REST and MCP, read back, kept in history, and checked', async () => {
    const { rest, key } = await account();
    const maya = await ok<Entity>(rest, 'POST', '/api/entities', {
      name: 'Maya',
      type: 'person',
      observations: [
        { content: 'works at Acme', validFrom: '2021-02-01', validTo: '2024-06-30' },
        'likes tea',
      ],
    });
    expect(maya.observations[0]).toMatchObject({
      content: 'works at Acme',
      validFrom: '2021-02-01T00:00:00.000Z',
      validTo: '2024-06-30T00:00:00.000Z',
    });
    expect(maya.observations[1]).not.toHaveProperty('validFrom');
    const acme = await ok<Entity>(rest, 'POST', '/api/entities', { name: 'Acme', type: 'org' });
    const relation = await ok<{ id: string; validFrom?: string }>(rest, 'POST', '/api/relations', {
      fromEntityId: maya.id,
      toEntityId: acme.id,
      type: 'worked_at',
      validFrom: '2021-02-01T09:00:00Z',
    });
    expect(relation.validFrom).toBe('2021-02-01T09:00:00.000Z');
    const updated = await ok<{ validFrom?: string; validTo?: string }>(
      rest,
      'PUT',
      `/api/relations/${relation.id}`,
      { type: 'worked_at', validTo: '2024-06-30' },
    );
    expect(updated).toMatchObject({
      validFrom: '2021-02-01T09:00:00.000Z',
      validTo: '2024-06-30T00:00:00.000Z',
    });
    const listed = await ok<{ relations: { validTo?: string }[] }>(
      rest,
      'GET',
      `/api/relations?entityId=${maya.id}`,
    );
    expect(listed.relations[0]!.validTo).toBe('2024-06-30T00:00:00.000Z');

    const backwards = await rest({
      method: 'POST',
      url: '/api/relations',
      payload: {
        fromEntityId: acme.id,
        toEntityId: maya.id,
        type: 'x',
        validFrom: '2025-01-01',
        validTo: '2024-01-01',
      },
    });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().details[0].field).toBe('body.validTo');
    const malformed = await rest({
      method: 'POST',
      url: `/api/entities/${maya.id}/observations`,
      payload: { observations: [{ content: 'x', validFrom: 'last spring' }] },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().details[0].field).toMatch(/^body\.observations\.0/);

    const mcp = await connectMcp(baseUrl, key);
    closers.push(() => mcp.close());
    await callTool(mcp, 'add_observations', {
      observations: [
        { entityName: 'Maya', contents: ['works at Globex'], validFrom: '2024-07-01' },
      ],
    });
    await callTool(mcp, 'create_relations', {
      relations: [{ from: 'Maya', to: 'Acme', relationType: 'knows', validFrom: '2019-01-01' }],
    });
    const read = await ok<Entity>(rest, 'GET', `/api/entities/${maya.id}`);
    expect(read.observations.find((o) => o.content === 'works at Globex')).toMatchObject({
      validFrom: '2024-07-01T00:00:00.000Z',
    });

    // The relation's validity change is in history, and a revert puts it back.
    const page = await ok<HistoryPage>(rest, 'GET', `/api/entities/${maya.id}/history`);
    const change = page.changes.find(
      (item) => item.type === 'relation_updated' && item.before?.kind === 'relation',
    )!;
    expect(change.before).toMatchObject({ validTo: null });
    expect(change.after).toMatchObject({ validTo: '2024-06-30T00:00:00.000Z' });
    await ok(rest, 'POST', `/api/changes/${change.seq}/revert`);
    const relationsThen = await ok<{ relations: { id: string; validTo?: string }[] }>(
      rest,
      'GET',
      `/api/relations?entityId=${maya.id}&asOf=seq:${change.seq}`,
    );
    expect(relationsThen.relations.find((item) => item.id === relation.id)).toMatchObject({
      validTo: '2024-06-30T00:00:00.000Z',
    });
    const relationsBefore = await ok<{ relations: unknown[]; total: number }>(
      rest,
      'GET',
      `/api/relations?entityId=${maya.id}&asOf=seq:${change.callSeq - 1}`,
    );
    expect(relationsBefore.total).toBe(1);
    const reverted = await ok<{ relations: { id: string; validTo?: string }[] }>(
      rest,
      'GET',
      `/api/relations?entityId=${maya.id}`,
    );
    expect(reverted.relations.find((item) => item.id === relation.id)).not.toHaveProperty(
      'validTo',
    );
  });
});

describe('who may read and undo what', () => {
  it('keeps history to its space and credential: 404 across spaces, 403 for a read-only key, 400 for a forged cursor', async () => {
    const { rest, userId } = await account();
    await setPlan(t, userId, 'pro');
    await ok(rest, 'POST', '/api/spaces', { slug: 'work', name: 'Work' });
    const work = (options: Parameters<Requester>[0]) =>
      rest({ ...options, headers: { ...options.headers, 'x-engram-space': 'work' } });
    const there = await ok<Entity>(work, 'POST', '/api/entities', { name: 'Elsewhere', type: 'x' });
    const seq = (await ok<HistoryPage>(work, 'GET', '/api/changes')).changes[0]!.seq;
    // The default space knows neither the change nor the entity.
    expect((await rest({ method: 'POST', url: `/api/changes/${seq}/revert` })).statusCode).toBe(
      404,
    );
    expect(
      (await rest({ method: 'GET', url: `/api/entities/${there.id}/history` })).statusCode,
    ).toBe(404);
    expect((await ok<HistoryPage>(rest, 'GET', '/api/changes')).changes).toEqual([]);

    const key = await ok<{ apiKey: string }>(rest, 'POST', '/api/keys', {
      name: 'reader',
      permissions: ['spaces:*:read'],
    });
    const reader = as(t.app, key.apiKey);
    const readerInWork = (options: Parameters<Requester>[0]) =>
      reader({ ...options, headers: { ...options.headers, 'x-engram-space': 'work' } });
    expect((await ok<HistoryPage>(readerInWork, 'GET', '/api/changes')).changes).toHaveLength(1);
    const refused = await readerInWork({ method: 'POST', url: `/api/changes/${seq}/revert` });
    expect(refused.statusCode).toBe(403);

    const forged = await work({ method: 'GET', url: '/api/changes?cursor=bm9wZQ' });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().details[0].field).toBe('query.cursor');
    const since = await work({ method: 'GET', url: '/api/changes?since=tomorrow' });
    expect(since.statusCode).toBe(400);
    expect(since.json().details[0].field).toBe('query.since');
  });
});
