import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';
import { callTool, connectMcp } from '../test/mcp-client.js';

// Reads that asked for everything: each answer stays within READ_MAX_ROWS
// rows and READ_MAX_BYTES bytes, and says so when it was cut. Small limits
// here keep the test fast; the defaults are 1,000 rows and 4 MiB.

let t: TestApp;
let base: string;
let client: Client;
let small: Client;
let call: ReturnType<typeof as>;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp({ READ_MAX_ROWS: '50', READ_MAX_BYTES: '20000' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { token, user } = await signUp(t.app);
  call = as(t.app, token);
  await t.database.db.updateTable('subscriptions').set({ plan_id: 'pro' }).execute();
  client = await connectMcp(base, user.apiKey);
  clients.push(client);
  // 120 small entities in a chain, and one hub with 600 leaves.
  const names = Array.from({ length: 120 }, (_, i) => `node-${String(i).padStart(3, '0')}`);
  await callTool(client, 'create_entities', {
    entities: names.map((name) => ({ name, entityType: 'thing', observations: [`about ${name}`] })),
  });
  await callTool(client, 'create_relations', {
    relations: names
      .slice(1)
      .map((name, i) => ({ from: names[i], to: name, relationType: 'next' })),
  });
  const leaves = Array.from({ length: 600 }, (_, i) => `leaf-${i}`);
  await callTool(client, 'create_entities', {
    entities: [...leaves, 'hub', 'island'].map((name) => ({
      name,
      entityType: 'star',
      observations: [],
    })),
  });
  await callTool(client, 'create_relations', {
    relations: leaves.map((leaf) => ({ from: 'hub', to: leaf, relationType: 'spoke' })),
  });

  const other = await signUp(t.app);
  small = await connectMcp(base, other.user.apiKey);
  clients.push(small);
  await callTool(small, 'create_entities', {
    entities: ['a', 'b', 'c'].map((name) => ({ name, entityType: 'x', observations: [name] })),
  });
  await callTool(small, 'create_relations', {
    relations: [{ from: 'a', to: 'b', relationType: 'r' }],
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

function text(result: CallToolResult): string {
  const [first] = result.content;
  return first && first.type === 'text' ? first.text : '';
}

type Graph = { entities: { name: string; observations: string[] }[]; relations: unknown[] };

describe('MCP reads without a limit are bounded and say so', () => {
  it('read_graph answers at most READ_MAX_ROWS entities and says where to go on', async () => {
    const result = (await client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
    const graph = result.structuredContent as Graph;
    expect(graph.entities).toHaveLength(50);
    expect(Object.keys(graph).sort()).toEqual(['entities', 'relations']);
    expect(text(result)).toMatch(
      /\n\n\(truncated: showing 50 entities; call read_graph with offset=50 for the next page\)$/,
    );
    const next = await callTool<Graph>(client, 'read_graph', { offset: 50 });
    expect(next.entities[0]!.name).toBe('node-050');
  });

  it('keeps the reference answer exactly when nothing is cut', async () => {
    const result = (await small.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
    expect(result.structuredContent).toEqual({
      entities: [
        { name: 'a', entityType: 'x', observations: ['a'] },
        { name: 'b', entityType: 'x', observations: ['b'] },
        { name: 'c', entityType: 'x', observations: ['c'] },
      ],
      relations: [{ from: 'a', to: 'b', relationType: 'r' }],
    });
  });

  it('the memory://knowledge-graph resource is bounded and carries a truncated field', async () => {
    const resource = await client.readResource({ uri: 'memory://knowledge-graph' });
    const first = resource.contents[0] as { text: string };
    const graph = JSON.parse(first.text) as Graph & { truncated?: string };
    expect(graph.entities).toHaveLength(50);
    expect(graph.truncated).toMatch(/truncated: showing 50 entities/);
  });

  it('search_nodes with an empty query is bounded', async () => {
    const result = (await client.callTool({
      name: 'search_nodes',
      arguments: { query: '' },
    })) as CallToolResult;
    expect((result.structuredContent as Graph).entities).toHaveLength(50);
    expect(text(result)).toMatch(
      /truncated: showing 50 of 722 matches; call search_nodes with offset=50/,
    );
  });

  it('open_nodes and get_neighbors of a hub cut its relations and say so', async () => {
    const result = (await client.callTool({
      name: 'open_nodes',
      arguments: { names: ['hub'] },
    })) as CallToolResult;
    expect((result.structuredContent as Graph).relations).toHaveLength(50);
    expect(text(result)).toMatch(/showing the first 50 relations of these entities/);
    const around = (await client.callTool({
      name: 'get_neighbors',
      arguments: { name: 'hub', limit: 1000 },
    })) as CallToolResult;
    expect((around.structuredContent as Graph).entities.length).toBeLessThanOrEqual(50);
    expect(text(around)).toMatch(/truncated:/);
  });

  it('find_path stops expanding at the row budget and says it did not search everything', async () => {
    const result = (await client.callTool({
      name: 'find_path',
      arguments: { from: 'leaf-1', to: 'island', maxDepth: 4 },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ found: false, path: [], relations: [] });
    expect(text(result)).toMatch(/truncated: no path found within the read limits/);
    // A search that covered everything says plainly that there is no path.
    const none = (await small.callTool({
      name: 'find_path',
      arguments: { from: 'a', to: 'c' },
    })) as CallToolResult;
    expect(text(none)).not.toMatch(/truncated/);
  });
});

describe('REST lists are bounded and say so', () => {
  it('GET /api/entities?limit=1000 answers READ_MAX_ROWS with truncated and nextOffset', async () => {
    const list = (await call({ method: 'GET', url: '/api/entities?limit=1000' })).json();
    expect(list.entities).toHaveLength(50);
    expect(list).toMatchObject({ total: 722, truncated: true, nextOffset: 50 });
    const last = (await call({ method: 'GET', url: '/api/entities?limit=100&offset=700' })).json();
    expect(last).toMatchObject({ truncated: false, nextOffset: null });
    expect(last.entities).toHaveLength(22);
  });

  it('GET /api/relations?limit=1000 answers READ_MAX_ROWS with truncated and nextOffset', async () => {
    const list = (await call({ method: 'GET', url: '/api/relations?limit=1000' })).json();
    expect(list.relations).toHaveLength(50);
    expect(list).toMatchObject({ truncated: true, nextOffset: 50 });
  });

  it('cuts by bytes at a whole entity, and cuts one oversized entity’s observations', async () => {
    const big = 'x'.repeat(9_000);
    for (const name of ['big-1', 'big-2', 'big-3']) {
      const created = await call({
        method: 'POST',
        url: '/api/entities',
        payload: { name, type: 'heavy', metadata: {}, observations: [`${big} ${name} one`] },
      });
      expect(created.statusCode).toBe(201);
    }
    const list = (await call({ method: 'GET', url: '/api/entities?types=heavy' })).json();
    expect(list.entities).toHaveLength(2); // 2 × 9 KB fit in 20,000 bytes, the third does not
    expect(list).toMatchObject({ total: 3, truncated: true, nextOffset: 2 });

    const huge = (
      await call({
        method: 'POST',
        url: '/api/entities',
        payload: {
          name: 'huge',
          type: 'heavy',
          metadata: {},
          observations: ['a', 'b', 'c', 'd'].map((n) => `${big} ${n}`),
        },
      })
    ).json();
    const read = (await call({ method: 'GET', url: `/api/entities/${huge.id}` })).json();
    expect(read.observationsCount).toBe(4);
    expect(read.observations).toHaveLength(2);
    expect(read.observationsTruncated).toBe(true);
    const small = (await call({ method: 'GET', url: '/api/entities?types=thing&limit=1' })).json();
    expect(small.entities[0].observationsTruncated).toBeUndefined();
  });

  it('GET /api/entities/:id reads at most ten rows per READ_MAX_ROWS of observations, the first ones', async () => {
    const many = (
      await call({
        method: 'POST',
        url: '/api/entities',
        payload: {
          name: 'many',
          type: 'long',
          metadata: {},
          observations: Array.from({ length: 620 }, (_, i) => `note ${i}`),
        },
      })
    ).json();
    const read = (await call({ method: 'GET', url: `/api/entities/${many.id}` })).json();
    expect(read.observationsCount).toBe(620);
    expect(read.observations).toHaveLength(500);
    expect(read.observations[0].content).toBe('note 0');
    expect(read.observations[499].content).toBe('note 499');
    expect(read.observationsTruncated).toBe(true);
  });
});

describe('search_nodes and open_nodes keep to the row budget, one statement each', () => {
  // READ_MAX_ROWS 50: an answer holds at most 500 observation rows.
  let bulky: Client;
  beforeAll(async () => {
    const owner = await signUp(t.app);
    await t.database.db.updateTable('subscriptions').set({ plan_id: 'pro' }).execute();
    bulky = await connectMcp(base, owner.user.apiKey);
    clients.push(bulky);
    const observations = (count: number, of: string) =>
      Array.from({ length: count }, (_, i) => `note ${i} of ${of}`);
    await callTool(bulky, 'create_entities', {
      entities: [
        { name: 'bulky-a', entityType: 'pile', observations: observations(400, 'a') },
        { name: 'bulky-b', entityType: 'pile', observations: observations(200, 'b') },
        { name: 'bulky-c', entityType: 'pile', observations: observations(600, 'c') },
      ],
    });
    await callTool(bulky, 'create_relations', {
      relations: [
        { from: 'bulky-a', to: 'bulky-b', relationType: 'next' },
        { from: 'bulky-b', to: 'bulky-c', relationType: 'next' },
      ],
    });
  });

  const search = async (offset?: number) =>
    (await bulky.callTool({
      name: 'search_nodes',
      arguments: offset === undefined ? { query: 'bulky' } : { query: 'bulky', offset },
    })) as CallToolResult;

  it('keeps entities while their observations fit, and says where to go on', async () => {
    const first = await search();
    expect(first.structuredContent).toEqual({
      entities: [{ name: 'bulky-a', entityType: 'pile', observations: expect.any(Array) }],
      relations: [{ from: 'bulky-a', to: 'bulky-b', relationType: 'next' }],
    });
    expect((first.structuredContent as Graph).entities[0]!.observations).toHaveLength(400);
    expect(text(first)).toMatch(
      /truncated: showing 1 entities; call search_nodes with offset=1 for the next ones\)$/,
    );
    const second = await search(1);
    expect((second.structuredContent as Graph).entities.map((e) => e.name)).toEqual(['bulky-b']);
    expect((second.structuredContent as Graph).relations).toHaveLength(2);
    expect(text(second)).toMatch(
      /showing 1 entities; call search_nodes with offset=2 for the next ones/,
    );
  });

  it('cuts the observations of a first entity that alone passes the budget', async () => {
    const last = await search(2);
    const graph = last.structuredContent as Graph;
    expect(graph.entities.map((e) => e.name)).toEqual(['bulky-c']);
    expect(graph.entities[0]!.observations).toEqual(
      Array.from({ length: 500 }, (_, i) => `note ${i} of c`),
    );
    expect(text(last)).toMatch(
      /the observations of "bulky-c" are cut to 500 of 600 to fit the answer's size limit/,
    );
  });

  it('open_nodes answers at most READ_MAX_ROWS entities, in the order named', async () => {
    const names = ['bulky-c', 'missing', 'bulky-a', 'bulky-b', 'bulky-c'];
    const opened = (await bulky.callTool({
      name: 'open_nodes',
      arguments: { names },
    })) as CallToolResult;
    expect((opened.structuredContent as Graph).entities.map((e) => e.name)).toEqual(['bulky-c']);
    expect(text(opened)).toMatch(/the observations of "bulky-c" are cut to 500 of 600/);
    const many = Array.from({ length: 60 }, (_, i) => `node-${String(i).padStart(3, '0')}`);
    const cut = (await client.callTool({
      name: 'open_nodes',
      arguments: { names: many },
    })) as CallToolResult;
    const graph = cut.structuredContent as Graph;
    expect(graph.entities.map((e) => e.name)).toEqual(many.slice(0, 50));
    expect(graph.relations).toHaveLength(50);
    expect(text(cut)).toMatch(
      /truncated: showing 50 entities; open the names after the first 50 found in another call/,
    );
  });
});
