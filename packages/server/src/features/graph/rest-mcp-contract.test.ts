import type { Entity, Relation } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { createGraphService, type GraphService } from './graph.service.js';
import { accountIdOf, createTestApp, type TestApp } from '../../test/harness.js';
import { newAccount, type Account } from '../../test/graph-fixtures.js';
import { expectError } from '../../test/http-assertions.js';
import { callTool, callToolError, connectEra, type EraClient } from '../../test/mcp-client.js';

// The same inputs through both adapters of the one graph service: REST
// (`app.inject`) and MCP (a real client over /mcp), on one account. Where the
// contracts allow, the answers are the same; each place they differ on
// purpose is named and asserted below.

type McpEntity = { name: string; entityType: string; observations: string[] };
type McpGraph = {
  entities: McpEntity[];
  relations: { from: string; to: string; relationType: string }[];
};

let t: TestApp;
let account: Account;
let mcp: EraClient;

beforeAll(async () => {
  t = await createTestApp();
  const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  account = await newAccount(t.app);
  const key = (
    await account.req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
  ).json<{ apiKey: string }>().apiKey;
  mcp = await connectEra('modern', baseUrl, key);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

/** An entity as both adapters can be compared: name, type, observation texts. */
const fromRest = (entity: Entity): McpEntity => ({
  name: entity.name,
  entityType: entity.type,
  observations: entity.observations.map((observation) => observation.content),
});

async function restCreate(payload: Record<string, unknown>) {
  return account.req({ method: 'POST', url: '/api/entities', payload });
}

async function mcpCreate(entities: McpEntity[]) {
  return (await callTool<{ entities: McpEntity[] }>(mcp, 'create_entities', { entities })).entities;
}

async function mcpOpen(names: string[]) {
  return callTool<McpGraph>(mcp, 'open_nodes', { names });
}

describe('REST and MCP over the one graph service: the same answers', () => {
  it('create an entity alike: names trimmed, blank and repeated observations dropped', async () => {
    const observations = ['  likes tea ', '', 'likes tea', 'writes code'];
    const rest = await restCreate({ name: '  Ada R  ', type: 'person', observations });
    expect(rest.statusCode, rest.body).toBe(201);
    const [viaMcp] = await mcpCreate([{ name: '  Ada M  ', entityType: 'person', observations }]);

    expect(fromRest(rest.json<Entity>())).toEqual({
      name: 'Ada R',
      entityType: 'person',
      observations: ['likes tea', 'writes code'],
    });
    expect(viaMcp).toEqual({ ...fromRest(rest.json<Entity>()), name: 'Ada M' });
  });

  it('read an entity alike (REST by id, MCP by name)', async () => {
    const created = (
      await restCreate({ name: 'Reader', type: 'concept', observations: ['a'] })
    ).json<Entity>();
    const byId = await account.req({ method: 'GET', url: `/api/entities/${created.id}` });
    const opened = await mcpOpen(['Reader']);
    expect(opened.entities).toEqual([fromRest(byId.json<Entity>())]);
  });

  it('add observations alike: texts the entity has and blank ones are skipped', async () => {
    const entity = (
      await restCreate({ name: 'Notes R', type: 'concept', observations: ['kept'] })
    ).json<Entity>();
    await mcpCreate([{ name: 'Notes M', entityType: 'concept', observations: ['kept'] }]);
    const contents = ['kept', ' new one ', '', 'new one', 'another'];

    const rest = await account.req({
      method: 'POST',
      url: `/api/entities/${entity.id}/observations`,
      payload: { observations: contents },
    });
    expect(rest.statusCode, rest.body).toBe(201);
    const { results } = await callTool<{
      results: { entityName: string; addedObservations: string[] }[];
    }>(mcp, 'add_observations', { observations: [{ entityName: 'Notes M', contents }] });

    const added = rest.json<{ added: { content: string }[] }>().added.map((o) => o.content);
    expect(added).toEqual(['new one', 'another']);
    expect(results).toEqual([{ entityName: 'Notes M', addedObservations: added }]);
  });

  it('rename and retype alike, observations and metadata kept', async () => {
    const entity = (
      await restCreate({ name: 'Old R', type: 'concept', metadata: { k: 1 }, observations: ['x'] })
    ).json<Entity>();
    await mcpCreate([{ name: 'Old M', entityType: 'concept', observations: ['x'] }]);

    const rest = await account.req({
      method: 'PUT',
      url: `/api/entities/${entity.id}`,
      payload: { name: '  New R ', type: 'project', metadata: { k: 2 } },
    });
    expect(rest.statusCode, rest.body).toBe(200);
    const { entity: viaMcp } = await callTool<{ entity: McpEntity & { metadata: unknown } }>(
      mcp,
      'update_entity',
      { name: 'Old M', newName: '  New M ', entityType: 'project', metadata: { k: 2 } },
    );

    const updated = rest.json<Entity>();
    expect({ ...fromRest(updated), metadata: updated.metadata }).toEqual({
      ...viaMcp,
      name: 'New R',
    });
    expect(viaMcp).toEqual({
      name: 'New M',
      entityType: 'project',
      observations: ['x'],
      metadata: { k: 2 },
    });
  });

  it('create a relation alike, and both see it', async () => {
    const from = (await restCreate({ name: 'Rel A', type: 'person' })).json<Entity>();
    const to = (await restCreate({ name: 'Rel B', type: 'person' })).json<Entity>();
    await mcpCreate([
      { name: 'Rel C', entityType: 'person', observations: [] },
      { name: 'Rel D', entityType: 'person', observations: [] },
    ]);

    const rest = await account.req({
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: from.id, toEntityId: to.id, type: 'knows' },
    });
    expect(rest.statusCode, rest.body).toBe(201);
    const { relations } = await callTool<{ relations: McpGraph['relations'] }>(
      mcp,
      'create_relations',
      { relations: [{ from: 'Rel C', to: 'Rel D', relationType: 'knows' }] },
    );

    const relation = rest.json<Relation>();
    expect(relations).toEqual([{ from: 'Rel C', to: 'Rel D', relationType: relation.type }]);
    expect((await mcpOpen(['Rel A'])).relations).toEqual([
      { from: relation.fromEntity.name, to: relation.toEntity.name, relationType: 'knows' },
    ]);
  });

  it('delete alike: the entity and its relations are gone for both', async () => {
    const doomed = (await restCreate({ name: 'Doomed R', type: 'x' })).json<Entity>();
    await mcpCreate([{ name: 'Doomed M', entityType: 'x', observations: [] }]);

    const rest = await account.req({ method: 'DELETE', url: `/api/entities/${doomed.id}` });
    expect(rest.json()).toEqual({ success: true, callSeq: expect.any(Number) });
    await callTool(mcp, 'delete_entities', { entityNames: ['Doomed M'] });

    expect(await mcpOpen(['Doomed R', 'Doomed M'])).toEqual({ entities: [], relations: [] });
  });
});

describe('REST and MCP: where the contracts differ on purpose', () => {
  it('an existing name: REST refuses with 409, MCP skips it and keeps the entity as it was', async () => {
    await restCreate({ name: 'Taken', type: 'person', observations: ['first'] });

    const rest = await restCreate({ name: 'Taken', type: 'project', observations: ['second'] });
    expect(expectError(rest, 409, 'CONFLICT')).toEqual({
      error: 'An entity named "Taken" already exists',
      code: 'CONFLICT',
      details: [{ field: 'name', message: 'An entity named "Taken" already exists' }],
    });
    expect(
      await mcpCreate([{ name: 'Taken', entityType: 'project', observations: ['second'] }]),
    ).toEqual([]);

    // Neither the refused nor the skipped create changed it.
    expect((await mcpOpen(['Taken'])).entities).toEqual([
      { name: 'Taken', entityType: 'person', observations: ['first'] },
    ]);
  });

  it('a name given twice in one MCP call is one entity with both observations (REST takes one)', async () => {
    expect(
      await mcpCreate([
        { name: 'Twice', entityType: 'person', observations: ['one'] },
        { name: 'Twice', entityType: 'project', observations: ['two', 'one'] },
      ]),
    ).toEqual([{ name: 'Twice', entityType: 'person', observations: ['one', 'two'] }]);
  });

  it('a blank name: REST 400 from the shared schema, MCP "Names must not be blank"', async () => {
    const rest = await restCreate({ name: '   ', type: 'person' });
    const body = expectError(rest, 400, 'VALIDATION_ERROR');
    expect(body.details).toEqual([{ field: 'body.name', message: 'Name is required' }]);

    expect(
      await callToolError(mcp, 'create_entities', {
        entities: [{ name: '   ', entityType: 'person', observations: [] }],
      }),
    ).toBe('Names must not be blank');
    expect(await callToolError(mcp, 'update_entity', { name: 'Taken', newName: ' ' })).toBe(
      'Names must not be blank',
    );
    expect((await mcpOpen(['Taken'])).entities).toHaveLength(1);
  });

  it('a relation to itself: both refuse, each in its own words', async () => {
    const self = (await restCreate({ name: 'Selfish', type: 'person' })).json<Entity>();
    const rest = await account.req({
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: self.id, toEntityId: self.id, type: 'likes' },
    });
    expect(expectError(rest, 400, 'VALIDATION_ERROR').details).toEqual([
      { field: 'toEntityId', message: 'Source and target entities cannot be the same' },
    ]);
    expect(
      await callToolError(mcp, 'create_relations', {
        relations: [{ from: 'Selfish', to: ' Selfish ', relationType: 'likes' }],
      }),
    ).toBe('A relation cannot connect "Selfish" to itself');
  });

  it('an existing relation: REST refuses with 409, MCP skips it', async () => {
    const a = (await restCreate({ name: 'Dup A', type: 'person' })).json<Entity>();
    const b = (await restCreate({ name: 'Dup B', type: 'person' })).json<Entity>();
    const payload = { fromEntityId: a.id, toEntityId: b.id, type: 'knows' };
    expect((await account.req({ method: 'POST', url: '/api/relations', payload })).statusCode).toBe(
      201,
    );

    const again = await account.req({ method: 'POST', url: '/api/relations', payload });
    expect(expectError(again, 409, 'CONFLICT').error).toBe('"Dup A" already knows "Dup B"');
    expect(
      await callTool(mcp, 'create_relations', {
        relations: [{ from: 'Dup A', to: 'Dup B', relationType: 'knows' }],
      }),
    ).toEqual({ relations: [] });
  });

  it('a missing entity: REST 404 "Entity not found"; MCP names it on writes, skips it on reads and deletes', async () => {
    const missingId = '00000000-0000-4000-8000-000000000000';
    expect(
      expectError(await account.req({ method: 'GET', url: `/api/entities/${missingId}` }), 404)
        .error,
    ).toBe('Entity not found');
    expect(
      expectError(
        await account.req({
          method: 'POST',
          url: `/api/entities/${missingId}/observations`,
          payload: { observations: ['x'] },
        }),
        404,
      ).error,
    ).toBe('Entity not found');
    expect(
      expectError(await account.req({ method: 'DELETE', url: `/api/entities/${missingId}` }), 404)
        .error,
    ).toBe('Entity not found');

    expect(
      await callToolError(mcp, 'add_observations', {
        observations: [{ entityName: 'Nobody', contents: ['x'] }],
      }),
    ).toBe('Entity not found: "Nobody". Create it with create_entities first.');
    expect(await callToolError(mcp, 'update_entity', { name: 'Nobody', entityType: 'x' })).toBe(
      'Entity not found: "Nobody". Create it with create_entities first.',
    );
    expect(await mcpOpen(['Nobody'])).toEqual({ entities: [], relations: [] });
    expect(await callTool(mcp, 'delete_entities', { entityNames: ['Nobody'] })).toEqual({
      success: true,
      message: 'Entities deleted successfully',
    });
  });
});

describe('the graph service object', () => {
  let graph: GraphService;
  let auth: SpaceAuth;

  beforeAll(async () => {
    graph = createGraphService({
      db: t.database.db,
      now: () => new Date(),
      bounds: { maxRows: 1_000, maxBytes: 4 << 20 },
    });
    const accountId = await accountIdOf(t, account.userId);
    auth = {
      accountId,
      space: { id: accountId, slug: 'default' },
      userId: account.userId,
      actor: { kind: 'user', id: account.userId },
      credential: { kind: 'session', id: 'test', expiresAt: null },
      role: 'owner' as const,
    };
  });

  it('holds its dependencies out of reach: only methods, no database', () => {
    expect('db' in graph).toBe(false);
    expect('deps' in graph).toBe(false);
    expect(Object.values(graph).every((method) => typeof method === 'function')).toBe(true);
  });

  it("with { existing: 'merge' }, an existing entity gains the observations it lacks, keeping its type", async () => {
    await graph.createEntities(auth, [{ name: 'Merged', type: 'person', observations: ['a'] }], {
      existing: 'reject',
    });
    const answer = await graph.createEntities(
      auth,
      [
        { name: 'Merged', type: 'project', observations: ['a', 'b'] },
        { name: 'Fresh', type: 'concept', observations: ['c'] },
      ],
      { existing: 'merge' },
    );
    expect(answer.map(fromRest)).toEqual([
      { name: 'Fresh', entityType: 'concept', observations: ['c'] },
      { name: 'Merged', entityType: 'person', observations: ['a', 'b'] },
    ]);
  });

  it("with { existing: 'reject' }, one existing name in a batch refuses the whole batch", async () => {
    await expect(
      graph.createEntities(
        auth,
        [
          { name: 'Batch new', type: 'x' },
          { name: 'Merged', type: 'x' },
        ],
        { existing: 'reject' },
      ),
    ).rejects.toMatchObject({ status: 409, message: 'An entity named "Merged" already exists' });
    expect((await graph.openNodes(auth, ['Batch new'])).entities).toEqual([]);
  });
});

describe('fields the answers gained over the reference shapes (consolidation)', () => {
  it('create_entities adds possibleDuplicates; REST entities carry aliases, a create possibleDuplicates', async () => {
    const structured = await callTool<Record<string, unknown>>(mcp, 'create_entities', {
      entities: [{ name: 'Gained', entityType: 'x', observations: [] }],
    });
    expect(Object.keys(structured).sort()).toEqual(['entities', 'possibleDuplicates']);
    const created = await restCreate({ name: 'Gained REST', type: 'x' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ aliases: [], possibleDuplicates: [] });
    const read = await account.req({
      method: 'GET',
      url: `/api/entities/${created.json<{ id: string }>().id}`,
    });
    expect(read.json()).toHaveProperty('aliases', []);
    expect(read.json()).not.toHaveProperty('possibleDuplicates');
  });
});
