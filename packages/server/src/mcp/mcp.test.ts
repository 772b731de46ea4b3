import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  callToolError,
  connectEra,
  eventually,
  openSession,
  postMcp,
  type EraClient,
} from '../test/mcp-client.js';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';

// Every case runs on both protocol eras: the 2026-07-28 stateless revision
// (SDK v2 client, pinned) and the 2025 era (the 1.x SDK client, a session).
// Both clients validate each tool's structuredContent against its outputSchema.

let t: TestApp;
let baseUrl: string;
const clients: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

/** A fresh account and an MCP client of the era acting for it through an API key. */
/** A tools/list POST to /mcp that carries no credential. */
function listToolsWithoutCredential(): Promise<Response> {
  return fetch(new URL('/mcp', baseUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

async function agentOf(era: 'modern' | 'legacy') {
  const { token } = await signUp(t.app);
  const key = (
    await as(t.app, token)({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
  ).json<{ apiKey: string }>().apiKey;
  const client: EraClient = await connectEra(era, baseUrl, key);
  clients.push(client);
  return { client, token, key };
}

type Graph = {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
};

describe.each(['modern', 'legacy'] as const)('MCP endpoint (%s era)', (era) => {
  const agent = () => agentOf(era);

  it('refuses a missing or bad credential before any tool runs', async () => {
    await expect(connectEra(era, baseUrl, 'eng_key_not-a-real-key')).rejects.toThrow();
    const response = await listToolsWithoutCredential();
    expect(response.status).toBe(401);
  });

  it('lists the reference tools with their annotations, plus ours', async () => {
    const { client } = await agent();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'create_entities',
        'create_relations',
        'add_observations',
        'delete_entities',
        'delete_observations',
        'delete_relations',
        'read_graph',
        'search_nodes',
        'open_nodes',
        'update_entity',
        'get_neighbors',
        'find_path',
        'list_types',
        'find_duplicates',
        'merge_entities',
      ]),
    );
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('read_graph')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('delete_entities')!.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(Object.keys(byName.get('create_entities')!.inputSchema.properties!)).toEqual([
      'entities',
    ]);
    // Every tool declares the shape of its structured result.
    for (const tool of tools)
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    expect(byName.get('read_graph')!.outputSchema).toMatchObject({
      properties: { entities: { type: 'array' }, relations: { type: 'array' } },
    });
  });

  it('creates entities, skipping existing names and merging duplicates in a batch', async () => {
    const { client } = await agent();
    const first = await callTool<Graph>(client, 'create_entities', {
      entities: [
        { name: 'Alice', entityType: 'person', observations: ['works at Acme'] },
        { name: 'Alice', entityType: 'person', observations: ['likes tea'] },
        { name: 'Acme', entityType: 'company', observations: [] },
      ],
    });
    expect(first.entities).toEqual([
      { name: 'Alice', entityType: 'person', observations: ['works at Acme', 'likes tea'] },
      { name: 'Acme', entityType: 'company', observations: [] },
    ]);
    const again = await callTool<Graph>(client, 'create_entities', {
      entities: [{ name: 'Alice', entityType: 'person', observations: ['other'] }],
    });
    expect(again.entities).toEqual([]);
    const graph = await callTool<Graph>(client, 'read_graph');
    expect(graph.entities).toHaveLength(2);
  });

  it('creates relations by name, skips existing triples, refuses missing entities', async () => {
    const { client } = await agent();
    await callTool(client, 'create_entities', {
      entities: [
        { name: 'A', entityType: 't', observations: [] },
        { name: 'B', entityType: 't', observations: [] },
      ],
    });
    const relation = { from: 'A', to: 'B', relationType: 'knows' };
    expect(await callTool(client, 'create_relations', { relations: [relation, relation] })).toEqual(
      {
        relations: [relation],
      },
    );
    expect(await callTool(client, 'create_relations', { relations: [relation] })).toEqual({
      relations: [],
    });
    const error = await callToolError(client, 'create_relations', {
      relations: [{ from: 'A', to: 'Nobody', relationType: 'knows' }],
    });
    expect(error).toContain('"Nobody"');
    const graph = await callTool<Graph>(client, 'read_graph');
    expect(graph.relations).toEqual([relation]);
  });

  it('adds and deletes observations', async () => {
    const { client } = await agent();
    await callTool(client, 'create_entities', {
      entities: [{ name: 'Bob', entityType: 'person', observations: ['one'] }],
    });
    const added = await callTool(client, 'add_observations', {
      observations: [{ entityName: 'Bob', contents: ['one', 'two', 'three'] }],
    });
    expect(added).toEqual({
      results: [{ entityName: 'Bob', addedObservations: ['two', 'three'] }],
    });
    expect(
      await callToolError(client, 'add_observations', {
        observations: [{ entityName: 'Ghost', contents: ['boo'] }],
      }),
    ).toContain('"Ghost"');
    await callTool(client, 'delete_observations', {
      deletions: [
        { entityName: 'Bob', observations: ['two', 'not there'] },
        { entityName: 'Ghost', observations: ['x'] },
      ],
    });
    const { entities } = await callTool<Graph>(client, 'open_nodes', { names: ['Bob'] });
    expect(entities[0]!.observations).toEqual(['one', 'three']);
  });

  it('deletes entities with their relations (cascade) and deletes relations', async () => {
    const { client } = await agent();
    await callTool(client, 'create_entities', {
      entities: ['X', 'Y', 'Z'].map((name) => ({ name, entityType: 'node', observations: [] })),
    });
    await callTool(client, 'create_relations', {
      relations: [
        { from: 'X', to: 'Y', relationType: 'links' },
        { from: 'Y', to: 'Z', relationType: 'links' },
        { from: 'X', to: 'Z', relationType: 'links' },
      ],
    });
    await callTool(client, 'delete_entities', { entityNames: ['Y', 'missing'] });
    let graph = await callTool<Graph>(client, 'read_graph');
    expect(graph.entities.map((entity) => entity.name)).toEqual(['X', 'Z']);
    expect(graph.relations).toEqual([{ from: 'X', to: 'Z', relationType: 'links' }]);
    await callTool(client, 'delete_relations', {
      relations: [{ from: 'X', to: 'Z', relationType: 'links' }],
    });
    graph = await callTool<Graph>(client, 'read_graph');
    expect(graph.relations).toEqual([]);
  });

  it('searches name, type and observations case-insensitively, with touching relations', async () => {
    const { client } = await agent();
    await callTool(client, 'create_entities', {
      entities: [
        { name: 'TypeScript', entityType: 'language', observations: ['typed JavaScript'] },
        { name: 'Anders', entityType: 'person', observations: ['designed TYPESCRIPT'] },
        { name: 'Rust', entityType: 'language', observations: ['memory safe'] },
        { name: 'Unrelated', entityType: 'thing', observations: [] },
      ],
    });
    await callTool(client, 'create_relations', {
      relations: [
        { from: 'Anders', to: 'TypeScript', relationType: 'designed' },
        { from: 'Unrelated', to: 'Rust', relationType: 'mentions' },
      ],
    });
    const byName = await callTool<Graph>(client, 'search_nodes', { query: 'typescript' });
    expect(byName.entities.map((entity) => entity.name)).toEqual(['TypeScript', 'Anders']);
    expect(byName.relations).toEqual([
      { from: 'Anders', to: 'TypeScript', relationType: 'designed' },
    ]);
    const byType = await callTool<Graph>(client, 'search_nodes', { query: 'LANGUAGE' });
    expect(byType.entities.map((entity) => entity.name).sort()).toEqual(['Rust', 'TypeScript']);
    const byObservation = await callTool<Graph>(client, 'search_nodes', { query: 'Memory Safe' });
    expect(byObservation.entities.map((entity) => entity.name)).toEqual(['Rust']);
    // A relation to a node outside the results is still returned.
    expect(byObservation.relations).toEqual([
      { from: 'Unrelated', to: 'Rust', relationType: 'mentions' },
    ]);
    const paged = await callTool<Graph>(client, 'search_nodes', {
      query: 'a',
      limit: 1,
      offset: 1,
    });
    expect(paged.entities).toHaveLength(1);
  });

  it('opens nodes with relations in either direction', async () => {
    const { client } = await agent();
    await callTool(client, 'create_entities', {
      entities: ['P', 'Q', 'R'].map((name) => ({ name, entityType: 'n', observations: [] })),
    });
    await callTool(client, 'create_relations', {
      relations: [
        { from: 'P', to: 'Q', relationType: 'r' },
        { from: 'R', to: 'P', relationType: 'r' },
      ],
    });
    const opened = await callTool<Graph>(client, 'open_nodes', { names: ['P', 'nope'] });
    expect(opened.entities.map((entity) => entity.name)).toEqual(['P']);
    // Both ends named: the opened one and the other, read from the database.
    expect(opened.relations).toEqual([
      { from: 'P', to: 'Q', relationType: 'r' },
      { from: 'R', to: 'P', relationType: 'r' },
    ]);
    const both = await callTool<Graph>(client, 'open_nodes', { names: ['Q', 'P'] });
    expect(both.relations).toEqual(opened.relations);
  });

  it('pages read_graph so every relation appears exactly once', async () => {
    const { client } = await agent();
    const names = Array.from({ length: 7 }, (_, index) => `n${index}`);
    await callTool(client, 'create_entities', {
      entities: names.map((name) => ({ name, entityType: 'n', observations: [] })),
    });
    await callTool(client, 'create_relations', {
      relations: names
        .slice(1)
        .map((name, index) => ({ from: names[index], to: name, relationType: 'next' })),
    });
    const seen: Graph['relations'] = [];
    const entities: string[] = [];
    for (let offset = 0; offset < 7; offset += 3) {
      const page = await callTool<Graph>(client, 'read_graph', { limit: 3, offset });
      entities.push(...page.entities.map((entity) => entity.name));
      seen.push(...page.relations);
    }
    expect(entities).toEqual(names);
    expect(seen).toHaveLength(6);
  });

  it('updates, walks neighbours, finds paths and lists types', async () => {
    const { client } = await agent();
    await callTool(client, 'create_entities', {
      entities: ['a', 'b', 'c', 'd'].map((name) => ({ name, entityType: 'hop', observations: [] })),
    });
    await callTool(client, 'create_relations', {
      relations: [
        { from: 'a', to: 'b', relationType: 'to' },
        { from: 'c', to: 'b', relationType: 'to' },
        { from: 'c', to: 'd', relationType: 'to' },
      ],
    });
    const path = await callTool(client, 'find_path', { from: 'a', to: 'd' });
    expect(path).toEqual({
      found: true,
      path: ['a', 'b', 'c', 'd'],
      relations: [
        { from: 'a', to: 'b', relationType: 'to' },
        { from: 'c', to: 'b', relationType: 'to' },
        { from: 'c', to: 'd', relationType: 'to' },
      ],
    });
    expect(await callTool(client, 'find_path', { from: 'a', to: 'd', maxDepth: 2 })).toMatchObject({
      found: false,
    });
    const near = await callTool<Graph>(client, 'get_neighbors', { name: 'b', depth: 1 });
    expect(near.entities.map((entity) => entity.name).sort()).toEqual(['a', 'b', 'c']);
    const updated = await callTool(client, 'update_entity', {
      name: 'd',
      newName: 'delta',
      entityType: 'greek',
      metadata: { letter: 4 },
    });
    expect(updated).toMatchObject({
      entity: { name: 'delta', entityType: 'greek', metadata: { letter: 4 } },
    });
    expect(await callToolError(client, 'update_entity', { name: 'a', newName: 'b' })).toContain(
      'already exists',
    );
    const types = await callTool(client, 'list_types');
    expect(types).toEqual({
      entityTypes: [
        { type: 'hop', count: 3 },
        { type: 'greek', count: 1 },
      ],
      relationTypes: [{ type: 'to', count: 3 }],
      nextCursor: null,
    });
  });

  it('keeps accounts apart and shares the graph with REST', async () => {
    const one = await agent();
    const two = await agent();
    await callTool(one.client, 'create_entities', {
      entities: [{ name: 'Private', entityType: 'secret', observations: ['hidden'] }],
    });
    expect(
      (await callTool<Graph>(two.client, 'search_nodes', { query: 'Private' })).entities,
    ).toEqual([]);
    expect((await callTool<Graph>(two.client, 'read_graph')).entities).toEqual([]);
    const rest = await as(t.app, one.token)({ method: 'GET', url: '/api/entities?query=private' });
    expect(rest.json().entities[0]).toMatchObject({ name: 'Private', type: 'secret' });
  });

  it('serves the knowledge-graph resource and notifies subscribers of changes from anywhere', async () => {
    const { client, token } = await agent();
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain('memory://knowledge-graph');
    const watch = await client.watch('memory://knowledge-graph');
    await as(
      t.app,
      token,
    )({ method: 'POST', url: '/api/entities', payload: { name: 'FromRest', type: 't' } });
    await eventually(() => watch.updates.length > 0, 5_000, 'a resource update');
    expect(watch.updates[0]).toBe('memory://knowledge-graph');
    const read = await client.readResource({ uri: 'memory://knowledge-graph' });
    const content = read.contents[0] as { text: string };
    expect(JSON.parse(content.text).entities[0].name).toBe('FromRest');
  });

  it('puts the structured answer in its text as compact JSON', async () => {
    const { client } = await agent();
    const answer = (await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Compact', entityType: 't', observations: ['a', 'b'] }] },
    })) as CallToolResult;
    const [first] = answer.content;
    expect(first?.type === 'text' && first.text).toBe(JSON.stringify(answer.structuredContent));
  });

  it('loses nothing under 20 parallel writers from several clients', async () => {
    const { key, client } = await agent();
    const others = await Promise.all([
      connectEra(era, baseUrl, key),
      connectEra(era, baseUrl, key),
    ]);
    clients.push(...others);
    const all = [client, ...others];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        callTool(all[index % all.length]!, 'create_entities', {
          entities: [
            { name: `parallel-${index}`, entityType: 'p', observations: [`obs ${index}`] },
            { name: 'shared', entityType: 'p', observations: [] },
          ],
        }),
      ),
    );
    const graph = await callTool<Graph>(client, 'read_graph');
    expect(graph.entities).toHaveLength(21);
    expect(graph.entities.filter((entity) => entity.name === 'shared')).toHaveLength(1);
  });
});

describe('MCP endpoint, both eras at once', () => {
  it('tells each account of its own changes only, on both eras', async () => {
    const one = await signUp(t.app);
    const two = await signUp(t.app);
    const watchers = await Promise.all(
      [one, two].flatMap((account) =>
        (['modern', 'legacy'] as const).map(async (era) => {
          const client = await connectEra(era, baseUrl, account.user.apiKey);
          clients.push(client);
          return { account, era, watch: await client.watch('memory://knowledge-graph') };
        }),
      ),
    );
    const writer = await connectEra('modern', baseUrl, one.user.apiKey);
    clients.push(writer);
    await callTool(writer, 'create_entities', {
      entities: [{ name: 'Mine', entityType: 't', observations: [] }],
    });
    await as(
      t.app,
      one.token,
    )({ method: 'POST', url: '/api/entities', payload: { name: 'Rest', type: 't' } });
    const ones = watchers.filter((watcher) => watcher.account === one);
    await eventually(() => ones.every((watcher) => watcher.watch.updates.length > 0));
    // Give a wrong delivery every chance to arrive before saying none did.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const watcher of watchers.filter((w) => w.account === two)) {
      expect(watcher.watch.updates, `${watcher.era} listener of another account`).toEqual([]);
    }
    await Promise.all(watchers.map((watcher) => watcher.watch.stop()));
  });

  it('shares one graph between a 2025 session and a 2026 client of the same key', async () => {
    const { user } = await signUp(t.app);
    const legacy = await connectEra('legacy', baseUrl, user.apiKey);
    const modern = await connectEra('modern', baseUrl, user.apiKey);
    clients.push(legacy, modern);
    await callTool(legacy, 'create_entities', {
      entities: [{ name: 'Old', entityType: 'era', observations: ['2025'] }],
    });
    const graph = await callTool<Graph>(modern, 'open_nodes', { names: ['Old'] });
    expect(graph.entities).toEqual([{ name: 'Old', entityType: 'era', observations: ['2025'] }]);
  });

  it('answers 401 with a WWW-Authenticate that points at the protected resource metadata', async () => {
    const response = await listToolsWithoutCredential();
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    expect(new URL(metadataUrl).pathname).toBe('/.well-known/oauth-protected-resource/mcp');
    expect(await response.json()).toMatchObject({ code: 'UNAUTHORIZED' });

    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: new URL('/mcp', baseUrl).href,
      bearer_methods_supported: ['header'],
    });
    // A bad key gets the same challenge.
    const bad = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { authorization: 'Bearer eng_key_nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('answers a 2025-era tool call with one JSON body, not an event stream', async () => {
    const { user } = await signUp(t.app);
    const session = await openSession(baseUrl, user.apiKey);
    const call = await postMcp(
      baseUrl,
      user.apiKey,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'read_graph', arguments: {} },
      },
      { 'mcp-session-id': session },
    );
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toContain('application/json');
    expect(await call.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      result: { structuredContent: { entities: [], relations: [] } },
    });
  });

  it('answers GET and DELETE without a session with 405', async () => {
    const { user } = await signUp(t.app);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/mcp', baseUrl), {
        method,
        headers: { authorization: `Bearer ${user.apiKey}`, accept: 'text/event-stream' },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
