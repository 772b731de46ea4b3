import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, callToolError, connectEra, type EraClient } from '../../test/mcp-client.js';
import { as, createTestApp, setPlan, signUp, type TestApp } from '../../test/harness.js';
import { TestSocket } from '../../test/ws-client.js';

let t: TestApp;
let baseUrl: string;
const closers: { close(): unknown }[] = [];

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const closer of closers) await closer.close();
  await t.close();
});

type Call = ReturnType<typeof as>;

async function account(plan = 'pro') {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, plan);
  const call = as(t.app, token);
  return { call, token, user, apiKey: user.apiKey };
}

/** A call in a space, named by the header. */
const inSpace = (call: Call, space: string) => (options: Parameters<Call>[0]) =>
  call({ ...options, headers: { ...options.headers, 'x-engram-space': space } });

async function createSpace(call: Call, body: Record<string, unknown>) {
  const response = await call({ method: 'POST', url: '/api/spaces', payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; slug: string; name: string }>();
}

async function keyWith(call: Call, permissions: string[]) {
  const response = await call({
    method: 'POST',
    url: '/api/keys',
    payload: { name: `scoped ${permissions.join(' ')}`, permissions },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ apiKey: string }>().apiKey;
}

const names = (response: LightMyRequestResponse) =>
  response
    .json<{ entities: { name: string }[] }>()
    .entities.map((entity) => entity.name)
    .sort();

describe('/api/spaces', () => {
  it('creates, lists by cursor, finds, renames and refuses what it must', async () => {
    const { call } = await account();
    const alpha = await createSpace(call, { name: 'Project Alpha' });
    expect(alpha).toMatchObject({ slug: 'project-alpha', name: 'Project Alpha' });
    // The same name again takes the next free slug; an explicit slug that is taken is a 409.
    expect((await createSpace(call, { name: 'Project Alpha' })).slug).toBe('project-alpha-2');
    const taken = await call({
      method: 'POST',
      url: '/api/spaces',
      payload: { name: 'Other', slug: 'project-alpha' },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ error: 'A space with this slug already exists' });
    const bad = await call({
      method: 'POST',
      url: '/api/spaces',
      payload: { name: 'x', slug: 'Not A Slug' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toContain('slug');

    const first = await call({ method: 'GET', url: '/api/spaces?limit=2' });
    const page1 = first.json<{ spaces: { slug: string; counts: object }[]; nextCursor: string }>();
    expect(page1.spaces.map((s) => s.slug)).toEqual(['default', 'project-alpha']);
    expect(page1.spaces[0]!.counts).toEqual({ entities: 0, relations: 0, observations: 0 });
    const second = await call({
      method: 'GET',
      url: `/api/spaces?limit=2&cursor=${page1.nextCursor}`,
    });
    expect(second.json()).toMatchObject({
      spaces: [{ slug: 'project-alpha-2' }],
      nextCursor: null,
    });
    const filtered = await call({ method: 'GET', url: '/api/spaces?query=PROJECT' });
    expect(filtered.json().spaces).toHaveLength(2);

    expect((await call({ method: 'GET', url: `/api/spaces/${alpha.id}` })).json().slug).toBe(
      'project-alpha',
    );
    const renamed = await call({
      method: 'PATCH',
      url: '/api/spaces/project-alpha',
      payload: { name: 'Renamed' },
    });
    expect(renamed.json()).toMatchObject({ id: alpha.id, slug: 'project-alpha', name: 'Renamed' });
    const missing = await call({ method: 'GET', url: '/api/spaces/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'Space not found' });
  });

  it("holds the plan's number of spaces (the default one included)", async () => {
    const { call } = await account('free');
    await createSpace(call, { name: 'One' });
    await createSpace(call, { name: 'Two' });
    const over = await call({ method: 'POST', url: '/api/spaces', payload: { name: 'Three' } });
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toContain('3 memory spaces');
  });

  it('deletes a space with everything in it, by the owner session only; default stays', async () => {
    const { call, apiKey } = await account();
    await createSpace(call, { name: 'Doomed' });
    const doomed = inSpace(call, 'doomed');
    const ada = (
      await doomed({
        method: 'POST',
        url: '/api/entities',
        payload: { name: 'Ada', type: 'person', observations: ['x'] },
      })
    ).json<{ id: string }>();
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'Kept', type: 'x' } });

    const byKey = await t.app.inject({
      method: 'DELETE',
      url: '/api/spaces/doomed',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(byKey.statusCode).toBe(403);
    const keepDefault = await call({ method: 'DELETE', url: '/api/spaces/default' });
    expect(keepDefault.statusCode).toBe(400);
    expect(keepDefault.json().error).toBe('The default space cannot be deleted');

    expect((await call({ method: 'DELETE', url: '/api/spaces/doomed' })).statusCode).toBe(200);
    // Gone at once: reads, writes and the list.
    expect((await doomed({ method: 'GET', url: '/api/entities' })).statusCode).toBe(404);
    expect((await doomed({ method: 'GET', url: `/api/entities/${ada.id}` })).statusCode).toBe(404);
    const list = (await call({ method: 'GET', url: '/api/spaces' })).json<{
      spaces: { slug: string }[];
    }>();
    expect(list.spaces.map((s) => s.slug)).toEqual(['default']);
    // Then purged, and the account's counters with it.
    await t.runtime.accounts.purge.idle();
    t.runtime.accounts.purge.kick();
    await t.runtime.accounts.purge.idle();
    const left = await t.database.db
      .selectFrom('entities')
      .select('name')
      .where('id', '=', ada.id)
      .execute();
    expect(left).toEqual([]);
    const summary = (await call({ method: 'GET', url: '/api/analytics' })).json();
    expect(summary.totalEntities).toBe(1);
    expect(names(await call({ method: 'GET', url: '/api/entities' }))).toEqual(['Kept']);
    // The slug is free again once the purge is done.
    expect((await createSpace(call, { name: 'Doomed' })).slug).toBe('doomed');
  });
});

describe('isolation between spaces', () => {
  it('keeps every REST route family to the space named, header over query', async () => {
    const { call } = await account();
    await createSpace(call, { name: 'Work' });
    const work = inSpace(call, 'work');
    // The same names in both spaces: names are unique per space.
    const mk = async (c: Call, name: string, observation: string) =>
      (
        await c({
          method: 'POST',
          url: '/api/entities',
          payload: { name, type: 'person', observations: [observation] },
        })
      ).json<{ id: string }>();
    const homeAda = await mk(call, 'Ada', 'writes programs at home');
    const homeBob = await mk(call, 'Bob', 'likes tea at home');
    const workAda = await mk(work, 'Ada', 'reviews budgets at work');
    const workCy = await mk(work, 'Cy', 'runs the zebra project');
    const homeRel = (
      await call({
        method: 'POST',
        url: '/api/relations',
        payload: { fromEntityId: homeAda.id, toEntityId: homeBob.id, type: 'knows' },
      })
    ).json<{ id: string }>();
    await work({
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: workAda.id, toEntityId: workCy.id, type: 'manages' },
    });

    expect(names(await call({ method: 'GET', url: '/api/entities' }))).toEqual(['Ada', 'Bob']);
    expect(names(await work({ method: 'GET', url: '/api/entities' }))).toEqual(['Ada', 'Cy']);
    expect(names(await call({ method: 'GET', url: '/api/entities?space=work' }))).toEqual([
      'Ada',
      'Cy',
    ]);
    // The header wins over the query.
    expect(names(await work({ method: 'GET', url: '/api/entities?space=default' }))).toEqual([
      'Ada',
      'Cy',
    ]);
    // Search, by name and by observation text.
    expect(names(await work({ method: 'GET', url: '/api/entities?query=zebra' }))).toEqual(['Cy']);
    expect(names(await call({ method: 'GET', url: '/api/entities?query=zebra' }))).toEqual([]);
    // By id: another space's entity or relation is not found.
    expect((await call({ method: 'GET', url: `/api/entities/${workCy.id}` })).statusCode).toBe(404);
    expect((await work({ method: 'GET', url: `/api/entities/${homeBob.id}` })).statusCode).toBe(
      404,
    );
    expect(
      (await work({ method: 'PUT', url: `/api/relations/${homeRel.id}`, payload: { type: 'x' } }))
        .statusCode,
    ).toBe(404);
    expect((await work({ method: 'DELETE', url: `/api/entities/${homeBob.id}` })).statusCode).toBe(
      404,
    );
    expect((await call({ method: 'GET', url: `/api/entities/${homeBob.id}` })).statusCode).toBe(
      200,
    );
    // A relation across spaces is refused: the other end is not in this space.
    const across = await work({
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: workCy.id, toEntityId: homeBob.id, type: 'x' },
    });
    expect(across.statusCode).toBe(404);
    // Relations, types, the drawing, recall.
    const rels = (await work({ method: 'GET', url: '/api/relations' })).json<{
      relations: { type: string }[];
      total: number;
    }>();
    expect(rels.relations.map((r) => r.type)).toEqual(['manages']);
    expect(rels.total).toBe(1);
    const homeRels = (
      await call({ method: 'GET', url: '/api/relations?types=knows,manages' })
    ).json();
    expect(homeRels).toMatchObject({ total: 1, relations: [{ type: 'knows' }] });
    const searched = (await work({ method: 'GET', url: '/api/relations?query=ada' })).json();
    expect(searched.relations.map((r: { type: string }) => r.type)).toEqual(['manages']);
    const listed = (await work({ method: 'GET', url: '/api/entities' })).json();
    expect(listed.total).toBe(2);
    const ofType = (await work({ method: 'GET', url: '/api/entities?types=person' })).json();
    expect(ofType.total).toBe(2);
    const entityTypes = (await work({ method: 'GET', url: '/api/entities/types' })).json();
    expect(entityTypes.types).toEqual([expect.objectContaining({ type: 'person', count: 2 })]);
    const types = (await work({ method: 'GET', url: '/api/relations/types' })).json<{
      types: { type: string }[];
    }>();
    expect(types.types.map((r) => r.type)).toEqual(['manages']);
    const graph = (await call({ method: 'GET', url: '/api/relations/graph/data' })).json<{
      entities: { id: string }[];
    }>();
    expect(graph.entities.map((n) => n.id).sort()).toEqual([homeAda.id, homeBob.id].sort());
    const recall = (
      await work({ method: 'GET', url: '/api/recall?q=who%20writes%20programs' })
    ).json<{ results: unknown[] }>();
    expect(JSON.stringify(recall.results)).not.toContain('at home');
    const recallHome = (
      await call({ method: 'GET', url: '/api/recall?q=who%20writes%20programs' })
    ).json();
    expect(JSON.stringify(recallHome.results)).toContain('writes programs at home');
    // Export: the space's graph only.
    const exported = await work({ method: 'GET', url: '/api/export' });
    expect(exported.headers['content-disposition']).toContain('engram-export-work-');
    expect(exported.body).toContain('zebra');
    expect(exported.body).not.toContain('likes tea');
    // The space's counts, and the dashboard's for one space and for all.
    const counted = (await call({ method: 'GET', url: '/api/spaces/work' })).json();
    expect(counted.counts).toEqual({ entities: 2, relations: 1, observations: 2 });
    expect((await work({ method: 'GET', url: '/api/analytics' })).json().totalEntities).toBe(2);
    expect((await call({ method: 'GET', url: '/api/analytics' })).json().totalEntities).toBe(4);
    // An unknown space is a 404, on reads and writes alike.
    const unknown = await inSpace(call, 'nope')({ method: 'GET', url: '/api/entities' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('Space not found');
    expect(
      (
        await inSpace(
          call,
          'nope',
        )({ method: 'POST', url: '/api/entities', payload: { name: 'x', type: 'x' } })
      ).statusCode,
    ).toBe(404);
  });

  it('creates a space on first write only when asked (?create=1)', async () => {
    const { call } = await account();
    const user42 = inSpace(call, 'user-42');
    const refused = await user42({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'A', type: 'x' },
    });
    expect(refused.statusCode).toBe(404);
    const made = await user42({
      method: 'POST',
      url: '/api/entities?create=1',
      payload: { name: 'A', type: 'x' },
    });
    expect(made.statusCode).toBe(201);
    expect((await call({ method: 'GET', url: '/api/spaces/user-42' })).json()).toMatchObject({
      slug: 'user-42',
      counts: { entities: 1 },
    });
    const invalid = await inSpace(
      call,
      'Bad Slug',
    )({ method: 'POST', url: '/api/entities?create=1', payload: { name: 'A', type: 'x' } });
    expect(invalid.statusCode).toBe(400);
  });
});

describe('twin spaces (the same ids in two spaces)', () => {
  it('every kind of write in one space leaves its twin exactly as it was', async () => {
    const { call, apiKey } = await account();
    await createSpace(call, { name: 'Twin' });
    const post = async (url: string, payload: Record<string, unknown>) =>
      (await call({ method: 'POST', url, payload })).json<{ id: string }>();
    const ada = await post('/api/entities', {
      name: 'Ada',
      type: 'person',
      metadata: { role: 'author' },
      observations: ['writes notes', 'likes engines'],
    });
    const bob = await post('/api/entities', {
      name: 'Bob',
      type: 'person',
      observations: ['reads'],
    });
    const loom = await post('/api/entities', {
      name: 'Loom',
      type: 'tool',
      observations: ['weaves'],
    });
    const knows = await post('/api/relations', {
      fromEntityId: ada.id,
      toEntityId: bob.id,
      type: 'knows',
    });
    await post('/api/relations', { fromEntityId: ada.id, toEntityId: loom.id, type: 'uses' });
    // The default space exported losslessly and imported into the twin: the same ids in both.
    const document = JSON.parse((await call({ method: 'GET', url: '/api/export' })).body);
    const auth = (await t.runtime.authenticate(apiKey))!;
    const twinAuth = await t.runtime.spaces.resolveSpace(auth, 'twin', 'write', {});
    await t.runtime.transfer.importLossless(twinAuth, document);

    const twin = inSpace(call, 'twin');
    const twinAgent = await connectEra('legacy', baseUrl, apiKey, '/mcp/twin');
    closers.push(twinAgent);
    const snapshot = async () => {
      const exported = JSON.parse((await twin({ method: 'GET', url: '/api/export' })).body);
      delete exported.exportedAt;
      const tools = [
        await callTool(twinAgent, 'open_nodes', { names: ['Ada', 'Bob', 'Loom'] }),
        await callTool(twinAgent, 'search_nodes', { query: 'person' }),
        await callTool(twinAgent, 'read_graph', {}),
      ];
      const reads = await Promise.all(
        [
          '/api/entities',
          '/api/entities/types',
          '/api/relations',
          '/api/relations?query=knows',
          '/api/relations?entityId=' + ada.id,
          '/api/relations/types',
          '/api/relations/graph/data',
          `/api/relations/graph/${ada.id}`,
          `/api/entities/${ada.id}`,
          '/api/entities?query=engines',
          '/api/recall?q=who%20writes%20notes',
          '/api/spaces/twin',
        ].map(async (url) => (await twin({ method: 'GET', url })).body),
      );
      return { exported, reads, tools };
    };
    const before = await snapshot();
    expect(before.exported.entities).toHaveLength(3);

    // REST writes in the default space, by id.
    await call({
      method: 'PUT',
      url: `/api/entities/${ada.id}`,
      payload: { name: 'Ada L', type: 'writer', metadata: { role: 'x' } },
    });
    await call({
      method: 'POST',
      url: `/api/entities/${ada.id}/observations`,
      payload: { observations: ['new note'] },
    });
    await call({ method: 'PUT', url: `/api/relations/${knows.id}`, payload: { type: 'admires' } });
    await call({ method: 'DELETE', url: `/api/relations/${knows.id}` });
    await call({ method: 'DELETE', url: `/api/entities/${loom.id}` });
    // MCP writes in the default space, by name.
    const agent = await connectEra('modern', baseUrl, apiKey, '/mcp');
    closers.push(agent);
    await callTool(agent, 'delete_observations', {
      deletions: [{ entityName: 'Bob', observations: ['reads'] }],
    });
    await callTool(agent, 'add_observations', {
      observations: [{ entityName: 'Bob', contents: ['more'] }],
    });
    await callTool(agent, 'create_relations', {
      relations: [{ from: 'Bob', to: 'Ada L', relationType: 'follows' }],
    });
    await callTool(agent, 'delete_entities', { entityNames: ['Bob'] });

    expect(await snapshot()).toEqual(before);
    // And the default space did change.
    const mine = (await call({ method: 'GET', url: '/api/entities' })).json();
    expect(mine.entities.map((e: { name: string }) => e.name)).toEqual(['Ada L']);
  });
});

describe('scoped keys', () => {
  it('reach only what they were given, and are told what they lack', async () => {
    const { call } = await account();
    await createSpace(call, { name: 'Alpha' });
    await createSpace(call, { name: 'Beta' });
    await inSpace(
      call,
      'alpha',
    )({ method: 'POST', url: '/api/entities', payload: { name: 'In alpha', type: 'x' } });
    const readAlpha = await keyWith(call, ['space:alpha:read']);
    const writeAll = await keyWith(call, ['spaces:*:write']);
    const withKey = (key: string, space?: string) => (options: Parameters<Call>[0]) =>
      t.app.inject({
        ...options,
        headers: {
          ...options.headers,
          authorization: `Bearer ${key}`,
          ...(space ? { 'x-engram-space': space } : {}),
        },
      });

    const reader = withKey(readAlpha, 'alpha');
    expect(names(await reader({ method: 'GET', url: '/api/entities' }))).toEqual(['In alpha']);
    const write = await reader({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'No', type: 'x' },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().error).toBe('This API key lacks space:alpha:write');
    const beta = await withKey(readAlpha, 'beta')({ method: 'GET', url: '/api/entities' });
    expect(beta.statusCode).toBe(403);
    expect(beta.json().error).toBe('This API key lacks space:beta:read');
    expect((await withKey(readAlpha)({ method: 'GET', url: '/api/entities' })).statusCode).toBe(
      403,
    );
    // Every route family refuses the space it was not given, and every write.
    for (const url of [
      '/api/relations',
      '/api/entities/types',
      '/api/relations/graph/data',
      '/api/recall?q=x',
      '/api/export',
    ]) {
      const refused = await withKey(readAlpha, 'beta')({ method: 'GET', url });
      expect(refused.statusCode, url).toBe(403);
      expect((await withKey(readAlpha, 'alpha')({ method: 'GET', url })).statusCode, url).toBe(200);
    }
    for (const [method, url] of [
      ['POST', '/api/relations'],
      ['PUT', '/api/entities/x'],
      ['DELETE', '/api/entities/x'],
      ['POST', '/api/entities/x/observations'],
    ] as const) {
      const refused = await reader({ method, url, payload: {} });
      expect(refused.statusCode, url).toBe(403);
    }
    // It lists only its own space and may not create one.
    const listed = (await withKey(readAlpha)({ method: 'GET', url: '/api/spaces' })).json();
    expect(listed.spaces.map((s: { slug: string }) => s.slug)).toEqual(['alpha']);
    const create = await withKey(readAlpha)({
      method: 'POST',
      url: '/api/spaces',
      payload: { name: 'Gamma' },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json().error).toBe('This API key lacks spaces:*:write');
    // The dashboard: its own space's numbers, never every space's.
    expect((await reader({ method: 'GET', url: '/api/analytics' })).statusCode).toBe(200);
    const all = await withKey(readAlpha)({ method: 'GET', url: '/api/analytics' });
    expect(all.statusCode).toBe(403);
    expect(all.json().error).toBe('This API key lacks spaces:*:read');
    // Nothing changed.
    expect(names(await inSpace(call, 'alpha')({ method: 'GET', url: '/api/entities' }))).toEqual([
      'In alpha',
    ]);

    const writer = withKey(writeAll, 'beta');
    expect(
      (
        await writer({
          method: 'POST',
          url: '/api/entities',
          payload: { name: 'In beta', type: 'x' },
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await withKey(writeAll)({ method: 'POST', url: '/api/spaces', payload: { name: 'Gamma' } }))
        .statusCode,
    ).toBe(201);
  });
});

describe('MCP per space', () => {
  it.each(['modern', 'legacy'] as const)(
    '/mcp/<slug> serves that space alone (%s era)',
    async (era) => {
      const { call, apiKey } = await account();
      await createSpace(call, { name: 'Agent' });
      const connect = async (key: string, path: string): Promise<EraClient> => {
        const client = await connectEra(era, baseUrl, key, path);
        closers.push(client);
        return client;
      };
      const agent = await connect(apiKey, '/mcp/agent');
      const home = await connect(apiKey, '/mcp');
      await callTool(agent, 'create_entities', {
        entities: [{ name: 'Shared', entityType: 'x', observations: ['agent side'] }],
      });
      await callTool(home, 'create_entities', {
        entities: [{ name: 'Shared', entityType: 'x', observations: ['home side'] }],
      });
      const read = await callTool<{ entities: { observations: string[] }[] }>(agent, 'read_graph');
      expect(read.entities.map((e) => e.observations)).toEqual([['agent side']]);
      const found = await callTool<{ entities: unknown[] }>(home, 'search_nodes', {
        query: 'agent side',
      });
      expect(found.entities).toEqual([]);
      const rest = names(await inSpace(call, 'agent')({ method: 'GET', url: '/api/entities' }));
      expect(rest).toEqual(['Shared']);

      const readOnly = await connect(await keyWith(call, ['space:agent:read']), '/mcp/agent');
      expect(
        (await callTool<{ entities: unknown[] }>(readOnly, 'read_graph')).entities,
      ).toHaveLength(1);
      expect(
        await callToolError(readOnly, 'create_entities', {
          entities: [{ name: 'No', entityType: 'x', observations: [] }],
        }),
      ).toBe('This API key lacks space:agent:write');
      // Unknown space: refused before any session or tool.
      await expect(connectEra(era, baseUrl, apiKey, '/mcp/nope')).rejects.toThrow();
      // Made on first use when the address asks for it.
      const made = await connect(apiKey, `/mcp/fresh-${era}?create=1`);
      await callTool(made, 'create_entities', {
        entities: [{ name: 'First', entityType: 'x', observations: [] }],
      });
      const fresh = await call({ method: 'GET', url: `/api/spaces/fresh-${era}` });
      expect(fresh.json()).toMatchObject({ counts: { entities: 1 } });
    },
  );
});

describe('realtime per space', () => {
  it("sends the events of the connection's space only, each naming it", async () => {
    const { call, apiKey } = await account();
    await createSpace(call, { name: 'Live' });
    const socket = await TestSocket.open(baseUrl, apiKey, {}, 'live');
    closers.push(socket);
    socket.send('subscribe_to_graph_changes', {});
    await socket.next((m) => m.type === 'subscribed');
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'Elsewhere', type: 'x' } });
    await inSpace(
      call,
      'live',
    )({ method: 'POST', url: '/api/entities', payload: { name: 'Here', type: 'x' } });
    const event = await socket.next((m) => m.type === 'entity_created');
    expect(event.payload.name).toBe('Here');
    expect((event as { space?: string }).space).toBe('live');

    const refused = await TestSocket.open(baseUrl, apiKey, {}, 'nope');
    expect((await refused.closed).reason).toBe('Space not found');
  });
});
