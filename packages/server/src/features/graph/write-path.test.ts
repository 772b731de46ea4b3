import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, callToolError } from '../../test/mcp-client.js';
import { createTestApp, signUpAgent, type TestApp } from '../../test/harness.js';

/**
 * REST and MCP write through one path (graph.writes.ts): the rules they share
 * are tested once here through both, and a batch of any size is one set of
 * statements (no parameter per row).
 */

let t: TestApp;
let baseUrl: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

async function account() {
  const agent = await signUpAgent(t, baseUrl);
  clients.push(agent.mcp);
  return agent;
}

async function createEntity(rest: Awaited<ReturnType<typeof account>>['rest'], name: string) {
  const response = await rest({
    method: 'POST',
    url: '/api/entities',
    payload: { name, type: 'person', observations: ['first'] },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

describe('one write path for REST and MCP', () => {
  it('refuses an addition of only blank observations the same way, and changes nothing', async () => {
    const { rest, mcp } = await account();
    const id = await createEntity(rest, 'Ada');

    const response = await rest({
      method: 'POST',
      url: `/api/entities/${id}/observations`,
      payload: { observations: ['  ', ''] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: 'Give at least one observation that is not blank',
      details: [{ field: 'observations' }],
    });

    const text = await callToolError(mcp, 'add_observations', {
      observations: [{ entityName: 'Ada', contents: ['   '] }],
    });
    expect(text).toBe('Give at least one observation that is not blank');

    const entity = (await rest({ method: 'GET', url: `/api/entities/${id}` })).json<{
      observations: { content: string }[];
    }>();
    expect(entity.observations.map((o) => o.content)).toEqual(['first']);
  });

  it('adds observations by name all or nothing: one missing name refuses the call, before any blank text', async () => {
    const { rest, mcp } = await account();
    const id = await createEntity(rest, 'Ada');

    const missing = await callToolError(mcp, 'add_observations', {
      observations: [
        { entityName: 'Ada', contents: ['second'] },
        { entityName: 'Nobody', contents: ['x'] },
        { entityName: 'Ghost', contents: ['y'] },
      ],
    });
    expect(missing).toBe(
      'Entity not found: "Nobody", "Ghost". Create them with create_entities first.',
    );
    const blankAndMissing = await callToolError(mcp, 'add_observations', {
      observations: [
        { entityName: 'Ada', contents: ['  '] },
        { entityName: 'Nobody', contents: ['x'] },
      ],
    });
    expect(blankAndMissing).toBe(
      'Entity not found: "Nobody". Create it with create_entities first.',
    );

    const entity = (await rest({ method: 'GET', url: `/api/entities/${id}` })).json<{
      observations: { content: string }[];
      observationsCount: number;
    }>();
    expect(entity.observations.map((o) => o.content)).toEqual(['first']);
    expect(entity.observationsCount).toBe(1);
    const changes = (await rest({ method: 'GET', url: '/api/changes' })).json<{
      changes: unknown[];
    }>();
    expect(changes.changes).toHaveLength(1);
  });

  it('drops blank and repeated observations on create the same way', async () => {
    const { rest, mcp } = await account();
    const created = await rest({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Rest', type: 'person', observations: [' a ', '', 'a', 'b'] },
    });
    expect(created.json<{ observations: { content: string }[] }>().observations).toHaveLength(2);
    const { entities } = await callTool<{ entities: { observations: string[] }[] }>(
      mcp,
      'create_entities',
      { entities: [{ name: 'Mcp', entityType: 'person', observations: [' a ', '', 'a', 'b'] }] },
    );
    expect(entities[0]!.observations).toEqual(['a', 'b']);
  });

  it('refuses a rename onto an existing name with the same message', async () => {
    const { rest, mcp } = await account();
    const id = await createEntity(rest, 'Ada');
    await createEntity(rest, 'Grace');

    const response = await rest({
      method: 'PUT',
      url: `/api/entities/${id}`,
      payload: { name: 'Grace', type: 'person' },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      error: 'An entity named "Grace" already exists',
      details: [{ field: 'name' }],
    });
    const text = await callToolError(mcp, 'update_entity', { name: 'Ada', newName: 'Grace' });
    expect(text).toBe('An entity named "Grace" already exists');
  });

  it('deletes entities with their observations, relations and degrees, and nothing else', async () => {
    const { mcp, accountId } = await account();
    await callTool(mcp, 'create_entities', {
      entities: ['A', 'B', 'C', 'D'].map((name) => ({
        name,
        entityType: 'node',
        observations: [`${name} one`, `${name} two`],
      })),
    });
    // A–B has both ends deleted; A–C and C–B one; C–D none.
    await callTool(mcp, 'create_relations', {
      relations: [
        { from: 'A', to: 'B', relationType: 'knows' },
        { from: 'A', to: 'C', relationType: 'knows' },
        { from: 'C', to: 'B', relationType: 'knows' },
        { from: 'C', to: 'D', relationType: 'knows' },
      ],
    });

    await callTool(mcp, 'delete_entities', { entityNames: ['A', 'B'] });

    const { db } = t.database;
    const left = await sql<{ table: string; names: string[] }>`
      select 'observations' as table, array_agg(e.name order by e.name) as names
        from observations o left join entities e on e.space_id = o.space_id and e.id = o.entity_id
       where o.space_id = ${accountId}
      union all
      select 'relations', array_agg(f.name || '-' || t.name)
        from relations r
        left join entities f on f.space_id = r.space_id and f.id = r.from_id
        left join entities t on t.space_id = r.space_id and t.id = r.to_id
       where r.space_id = ${accountId}
      union all
      select 'degrees', array_agg(e.name || '=' || d.degree order by e.name)
        from entity_degrees d left join entities e on e.space_id = d.space_id and e.id = d.entity_id
       where d.space_id = ${accountId}
    `.execute(db);
    // No row is left pointing at a deleted entity (a null name would show it).
    expect(Object.fromEntries(left.rows.map((row) => [row.table, row.names]))).toEqual({
      observations: ['C', 'C', 'D', 'D'],
      relations: ['C-D'],
      degrees: ['C=1', 'D=1'],
    });
    const counters = await db
      .selectFrom('accounts')
      .select(['entity_count', 'relation_count', 'observation_count'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    // bigint columns: node-postgres reads strings, PGlite numbers.
    expect(Object.values(counters).map(Number)).toEqual([2, 1, 4]);
  });

  it('writes 100,000 relations in one MCP call and reads them all back', async () => {
    const { rest, mcp } = await account();
    const names = Array.from({ length: 1000 }, (_, i) => `node-${String(i).padStart(4, '0')}`);
    await callTool(mcp, 'create_entities', {
      entities: names.map((name) => ({ name, entityType: 'node', observations: [] })),
    });
    // Every node links to the next 100 (wrapping): 100,000 distinct relations, no loops.
    const relations = names.flatMap((from, i) =>
      Array.from({ length: 100 }, (_, step) => ({
        from,
        to: names[(i + 1 + step) % names.length]!,
        relationType: 'links_to',
      })),
    );
    const { relations: created } = await callTool<{ relations: unknown[] }>(
      mcp,
      'create_relations',
      { relations },
    );
    expect(created).toHaveLength(100_000);

    const { types } = (await rest({ method: 'GET', url: '/api/relations/types' })).json<{
      types: { type: string; count: number }[];
    }>();
    expect(types).toEqual([expect.objectContaining({ type: 'links_to', count: 100_000 })]);
    // Each node has 100 relations out and 100 in.
    const first = await callTool<{ relations: unknown[] }>(mcp, 'open_nodes', {
      names: ['node-0000'],
    });
    expect(first.relations).toHaveLength(200);

    // Paging read_graph walks every relation exactly once.
    let seen = 0;
    for (let offset = 0; offset < names.length; offset += 10) {
      const page = await callTool<{ entities: unknown[]; relations: unknown[] }>(
        mcp,
        'read_graph',
        { limit: 10, offset },
      );
      expect(page.entities).toHaveLength(10);
      seen += page.relations.length;
    }
    expect(seen).toBe(100_000);

    // Sent again, nothing is new: existing triples are skipped, not doubled.
    const again = await callTool<{ relations: unknown[] }>(mcp, 'create_relations', {
      relations: relations.slice(0, 5_000),
    });
    expect(again.relations).toHaveLength(0);
  }, 240_000);
});
