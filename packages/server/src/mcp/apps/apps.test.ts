import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  callToolError,
  connectEra,
  MODERN_REVISION,
  type Era,
} from '../../test/mcp-client.js';
import { as, createTestApp, signUp, type TestApp } from '../../test/harness.js';
import { LINKED_TOOLS, VIEW_CSP, VIEW_MAX_BYTES, VIEW_TOOLS, VIEWS } from './index.js';
import { viewHtml } from './views.js';

// MCP Apps (issue 61): the views and their tools are listed only to a client
// that declares the extension; a client that does not sees today's lists.

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

const uiCapabilities = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

interface AppsClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string; _meta?: Record<string, unknown> }[] }>;
  listResources(): Promise<{
    resources: { uri: string; mimeType?: string; _meta?: Record<string, unknown> }[];
  }>;
  readResource(params: { uri: string }): Promise<{
    contents: { uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }[];
  }>;
  close(): Promise<void>;
}

/** A client of the era that declares the MCP Apps extension, as a host that renders views does. */
async function connectApps(era: Era, credential: string): Promise<AppsClient> {
  const url = new URL('/mcp', baseUrl);
  const requestInit = { headers: { authorization: `Bearer ${credential}` } };
  const client =
    era === 'legacy'
      ? new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: uiCapabilities })
      : new ModernClient(
          { name: 'apps-host', version: '1.0.0' },
          { capabilities: uiCapabilities, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
        );
  if (client instanceof Client) {
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  } else {
    await client.connect(new ModernHttpTransport(url, { requestInit }));
  }
  clients.push(client);
  return client as unknown as AppsClient;
}

/** A fresh account: its owner's personal key, and a way to make a key with fewer permissions. */
async function account() {
  const { token, user } = await signUp(t.app);
  const call = as(t.app, token);
  const keyOf = async (permissions: string[]) => {
    const made = await call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'agent', permissions },
    });
    expect(made.statusCode, made.body).toBe(201);
    return made.json<{ apiKey: string }>().apiKey;
  };
  return { call, key: user.apiKey, keyOf };
}

const VIEW_TOOL_NAMES = Object.keys(VIEW_TOOLS);

describe.each(['modern', 'legacy'] as const)('MCP Apps (%s era)', (era) => {
  it('shows a client without the extension exactly today’s tools and resources', async () => {
    const { key } = await account();
    const plain = await connectEra(era, baseUrl, key);
    clients.push(plain);
    const { tools } = (await plain.listTools()) as Awaited<ReturnType<AppsClient['listTools']>>;
    const names = tools.map((tool) => tool.name);
    for (const name of VIEW_TOOL_NAMES) expect(names).not.toContain(name);
    for (const tool of tools) expect(tool._meta, tool.name).toBeUndefined();
    expect(names).toHaveLength(18);
    const { resources } = await plain.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['memory://knowledge-graph']);
    await expect(plain.readResource({ uri: VIEWS.graph.uri })).rejects.toThrow();
    // A view-only tool is not there to call (a protocol error, as for a tool that does not exist).
    await expect(
      plain.callTool({ name: 'entity_history', arguments: { name: 'x' } }),
    ).rejects.toThrow(/entity_history/);
  });

  it('lists the three views with their MIME type, CSP and HTML to a client that declares it', async () => {
    const { key } = await account();
    const client = await connectApps(era, key);
    const { resources } = await client.listResources();
    const views = resources.filter((resource) => resource.uri.startsWith('ui://'));
    expect(views.map((view) => view.uri).sort()).toEqual(
      Object.values(VIEWS)
        .map((view) => view.uri)
        .sort(),
    );
    expect(resources.map((resource) => resource.uri)).toContain('memory://knowledge-graph');
    for (const view of views) {
      expect(view.mimeType).toBe(RESOURCE_MIME_TYPE);
      expect(view._meta).toMatchObject({ ui: { csp: VIEW_CSP } });
      const { contents } = await client.readResource({ uri: view.uri });
      expect(contents).toHaveLength(1);
      const [content] = contents;
      expect(content!.mimeType).toBe('text/html;profile=mcp-app');
      expect(content!._meta).toMatchObject({ ui: { csp: VIEW_CSP } });
      expect(content!.text).toMatch(/^<!doctype html>/i);
      expect(Buffer.byteLength(content!.text!)).toBeLessThanOrEqual(VIEW_MAX_BYTES);
      // Everything inline: nothing is loaded from anywhere.
      expect(content!.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    }
  });

  it('links the tools to their views and marks the view-only tools for the app only', async () => {
    const { key } = await account();
    const client = await connectApps(era, key);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const [name, view] of Object.entries(LINKED_TOOLS)) {
      expect(byName.get(name)!._meta, name).toMatchObject({ ui: { resourceUri: VIEWS[view].uri } });
    }
    expect(byName.get('search_nodes')!._meta).toBeUndefined();
    for (const name of VIEW_TOOL_NAMES) {
      expect(byName.get(name)?._meta, name).toMatchObject({ ui: { visibility: ['app'] } });
    }
    expect(tools).toHaveLength(18 + VIEW_TOOL_NAMES.length);
  });

  it('keeps the linked tools’ results as they were', async () => {
    const { key } = await account();
    const plain = await connectEra(era, baseUrl, key);
    clients.push(plain);
    const client = await connectApps(era, key);
    await callTool(client, 'create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Engine', entityType: 'machine', observations: [] },
      ],
    });
    await callTool(client, 'create_relations', {
      relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }],
    });
    for (const [name, args] of [
      ['read_graph', {}],
      ['open_nodes', { names: ['Ada'] }],
      ['get_neighbors', { name: 'Ada' }],
      ['find_path', { from: 'Ada', to: 'Engine' }],
      ['find_duplicates', {}],
    ] as const) {
      expect(await client.callTool({ name, arguments: args }), name).toEqual(
        await plain.callTool({ name, arguments: args }),
      );
    }
  });

  it('answers an entity’s details and history, and reverts a change', async () => {
    const { key } = await account();
    const client = await connectApps(era, key);
    await callTool(client, 'create_entities', {
      entities: [{ name: 'Grace', entityType: 'person', observations: ['wrote a compiler'] }],
    });
    await callTool(client, 'add_observations', {
      observations: [{ entityName: 'Grace', contents: ['found a moth'] }],
    });
    const details = await callTool<{
      entity: { name: string; observations: { content: string; createdAt: string }[] };
    }>(client, 'entity_details', { name: 'Grace' });
    expect(details.entity.name).toBe('Grace');
    expect(details.entity.observations.map((o) => o.content)).toEqual([
      'wrote a compiler',
      'found a moth',
    ]);
    const history = await callTool<{ changes: { seq: number; callSeq: number; type: string }[] }>(
      client,
      'entity_history',
      { name: 'Grace', limit: 10 },
    );
    expect(history.changes.length).toBeGreaterThanOrEqual(2);
    const newest = history.changes[0]!;
    const reverted = await callTool<{ reverted: { callSeq: number } }>(client, 'revert_change', {
      seq: newest.seq,
    });
    expect(reverted.reverted.callSeq).toBe(newest.callSeq);
    const after = await callTool<{ entity: { observations: { content: string }[] } }>(
      client,
      'entity_details',
      { name: 'Grace' },
    );
    expect(after.entity.observations.map((o) => o.content)).toEqual(['wrote a compiler']);
    expect(await callToolError(client, 'entity_history', { name: 'Nobody' })).toBe(
      'Entity not found',
    );
    expect(await callTool(client, 'view_access')).toEqual({ canWrite: true, reason: null });
  });

  it('dismisses a pair by the entities’ ids', async () => {
    const { key } = await account();
    const client = await connectApps(era, key);
    await callTool(client, 'create_entities', {
      entities: [
        { name: 'Linus', entityType: 'person', observations: [] },
        { name: 'linus', entityType: 'person', observations: [] },
      ],
    });
    const idOf = async (name: string) =>
      (await callTool<{ entity: { id: string } }>(client, 'entity_details', { name })).entity.id;
    const ids = [await idOf('Linus'), await idOf('linus')];
    expect(ids[0]).not.toBe(ids[1]);
    expect(await callTool(client, 'dismiss_duplicate', { entityIds: ids })).toEqual({
      success: true,
    });
    expect(
      await callToolError(client, 'dismiss_duplicate', {
        entityIds: [ids[0], '00000000-0000-4000-8000-000000000009'],
      }),
    ).toBe('Entity not found');
  });

  it('refuses the writes of a read-only key as the other write tools do, and keeps spaces apart', async () => {
    const owner = await account();
    const writer = await connectApps(era, owner.key);
    await callTool(writer, 'create_entities', {
      entities: [
        { name: 'Secret', entityType: 'note', observations: ['the code is 1234'] },
        { name: 'Secret note', entityType: 'note', observations: [] },
      ],
    });
    const seq = (
      await callTool<{ changes: { seq: number }[] }>(writer, 'entity_history', { name: 'Secret' })
    ).changes[0]!.seq;
    const reader = await connectApps(era, await owner.keyOf(['spaces:*:read']));
    const expected = await callToolError(reader, 'delete_entities', { entityNames: ['Secret'] });
    expect(await callToolError(reader, 'revert_change', { seq })).toBe(expected);
    expect(
      await callToolError(reader, 'dismiss_duplicate', {
        entityIds: ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'],
      }),
    ).toBe(expected);
    expect(await callTool(reader, 'view_access')).toEqual({ canWrite: false, reason: expected });
    // Reads still work for it.
    expect(
      (await callTool<{ changes: unknown[] }>(reader, 'entity_history', { name: 'Secret' })).changes
        .length,
    ).toBeGreaterThan(0);

    // Another account sees nothing of it, and cannot revert its changes.
    const other = await account();
    const stranger = await connectApps(era, other.key);
    expect(await callToolError(stranger, 'entity_details', { name: 'Secret' })).toBe(
      'Entity not found',
    );
    expect(await callToolError(stranger, 'entity_history', { name: 'Secret' })).toBe(
      'Entity not found',
    );
    expect(await callToolError(stranger, 'revert_change', { seq })).toBe('Change not found');
  });
});

describe('the views’ files', () => {
  it('are read from the web build WEB_DIST_DIR names, as the web app is served', async () => {
    const webDist = await mkdtemp(join(tmpdir(), 'engram-web-dist-'));
    try {
      await mkdir(join(webDist, 'mcp-apps'));
      await writeFile(join(webDist, 'mcp-apps', 'graph.html'), '<!doctype html><p>relocated</p>');
      expect(viewHtml('graph', webDist)).toBe('<!doctype html><p>relocated</p>');
      // Not built there: a page that says so, not the package's own build.
      expect(viewHtml('entity', webDist)).toMatch(/was not built on the server/);
    } finally {
      await rm(webDist, { recursive: true, force: true });
    }
  });
});
