import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';

/** The protocol revision the v2 client pins for the stateless era. */
export const MODERN_REVISION = '2026-07-28';

/**
 * A real 2025-era MCP client (the 1.x SDK's, as today's agents use) over
 * Streamable HTTP, authenticated with a bearer credential: it opens a session.
 */
export async function connectMcp(
  baseUrl: string,
  credential: string,
  path = '/mcp',
): Promise<Client> {
  const client = new Client({ name: 'engram-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${credential}` } },
  });
  await client.connect(transport);
  return client;
}

/** A real 2026-07-28 MCP client (SDK v2, pinned to the stateless revision): no session. */
export async function connectMcpModern(
  baseUrl: string,
  credential: string,
  path = '/mcp',
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'engram-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  const transport = new ModernHttpTransport(new URL(path, baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${credential}` } },
  });
  await client.connect(transport);
  return client;
}

export type Era = 'modern' | 'legacy';

/** What a test needs from a client of either era. */
export interface EraClient {
  era: Era;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{
    tools: {
      name: string;
      annotations?: Record<string, unknown> | undefined;
      inputSchema: { properties?: Record<string, unknown> | undefined };
      outputSchema?: Record<string, unknown> | undefined;
    }[];
  }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  /**
   * Starts hearing `notifications/resources/updated` for `uri`
   * (`resources/subscribe` on 2025, `subscriptions/listen` on 2026-07-28);
   * `updates` are the URIs heard, in order.
   */
  watch(uri: string): Promise<{ updates: string[]; stop(): Promise<void> }>;
  close(): Promise<void>;
}

/** A client of the given era, with one way to watch a resource on both. */
export async function connectEra(
  era: Era,
  baseUrl: string,
  credential: string,
  /** `/mcp` (the default space) or `/mcp/<slug>`. */
  path = '/mcp',
): Promise<EraClient> {
  if (era === 'legacy') {
    const client = await connectMcp(baseUrl, credential, path);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    return {
      era,
      callTool: (params) => client.callTool(params),
      listTools: () => client.listTools(),
      listResources: () => client.listResources(),
      readResource: (params) => client.readResource(params),
      async watch(uri) {
        await client.subscribeResource({ uri });
        return { updates, stop: async () => void (await client.unsubscribeResource({ uri })) };
      },
      close: () => client.close(),
    };
  }
  const client = await connectMcpModern(baseUrl, credential, path);
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  return {
    era,
    callTool: (params) => client.callTool(params),
    listTools: () => client.listTools(),
    listResources: () => client.listResources(),
    readResource: (params) => client.readResource(params),
    async watch(uri) {
      const subscription = await client.listen({ resourceSubscriptions: [uri] });
      return { updates, stop: () => subscription.close() };
    },
    close: () => client.close(),
  };
}

interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** Calls a tool and returns its structured result; fails the test on a tool error. */
export async function callTool<T = Record<string, unknown>>(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  return result.structuredContent as T;
}

/** Calls a tool that should fail; returns its error text. */
export async function callToolError(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} unexpectedly succeeded`);
  const [first] = result.content;
  return first && first.type === 'text' ? first.text : '';
}

/** Resolves once `check` holds, polling; rejects after `ms`. */
export async function eventually(check: () => boolean, ms = 5_000, what = 'condition') {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ── a raw 2025-era exchange, for tests that check what goes over the wire ───

/** A POST to /mcp as a 2025-era client sends it, with a bearer credential. */
export function postMcp(
  base: string,
  credential: string,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/mcp',
) {
  return fetch(new URL(path, base), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${credential}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1.0.0' },
  },
};

/** Opens a 2025-era session the way a client does; returns its id. */
export async function openSession(base: string, credential: string): Promise<string> {
  const response = await postMcp(base, credential, INITIALIZE);
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (!id) throw new Error('no session id');
  const initialized = await postMcp(
    base,
    credential,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': id },
  );
  if (initialized.status !== 202) throw new Error(`initialized answered ${initialized.status}`);
  return id;
}
