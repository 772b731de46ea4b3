import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, callToolError, connectMcp } from '../../test/mcp-client.js';
import { as, createTestApp, signUp, type TestApp } from '../../test/harness.js';

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

/** A fresh account reached both ways: REST with its session, MCP with an API key. */
async function account() {
  const { token } = await signUp(t.app);
  const rest = as(t.app, token);
  const key = (await rest({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })).json<{
    apiKey: string;
  }>().apiKey;
  const mcp = await connectMcp(baseUrl, key);
  clients.push(mcp);
  return { rest, mcp };
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

    const types = (await rest({ method: 'GET', url: '/api/relations/types' })).json<
      { type: string; count: number }[]
    >();
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
