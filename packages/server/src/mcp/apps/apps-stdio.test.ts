import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { accountIdOf, createTestApp, signUp, type TestApp } from '../../test/harness.js';
import { MODERN_REVISION } from '../../test/mcp-client.js';
import { serveStdio } from '../stdio.js';
import { VIEW_TOOLS, VIEWS } from './index.js';

// MCP Apps over stdio, in-process: a client of either era that declares the
// extension sees the views and their tools; one that does not, none of them.

let t: TestApp;
let auth: SpaceAuth;

beforeAll(async () => {
  t = await createTestApp();
  const { user } = await signUp(t.app);
  const accountId = await accountIdOf(t, user.id);
  auth = {
    accountId,
    space: { id: accountId, slug: 'default' },
    userId: user.id,
    actor: { kind: 'user', id: user.id },
    credential: { kind: 'session', id: 'stdio-test', expiresAt: null },
    role: 'owner',
  };
});
afterAll(async () => {
  await t.close();
});

/** Newline-delimited JSON-RPC over two streams, the client's end of a stdio pipe. */
class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private buffered = '';
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}
  async start(): Promise<void> {
    this.input.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString('utf8');
      let end: number;
      while ((end = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, end).trim();
        this.buffered = this.buffered.slice(end + 1);
        if (line) this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      }
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.output.write(`${JSON.stringify(message)}\n`);
  }
  async close(): Promise<void> {
    this.output.end();
    this.onclose?.();
  }
}

const capabilities = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

async function connect(era: 'modern' | 'legacy', declares: boolean) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const served = serveStdio(t.runtime, auth, { stdin: toServer, stdout: fromServer });
  const options = declares ? { capabilities } : {};
  const client =
    era === 'legacy'
      ? new Client({ name: 'stdio-apps', version: '1.0.0' }, options)
      : new ModernClient(
          { name: 'stdio-apps', version: '1.0.0' },
          { ...options, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
        );
  await client.connect(new PipeTransport(fromServer, toServer));
  return {
    client: client as unknown as {
      listTools(): Promise<{ tools: { name: string; _meta?: unknown }[] }>;
      listResources(): Promise<{ resources: { uri: string }[] }>;
    },
    close: async () => {
      await client.close();
      toServer.end();
      await served;
    },
  };
}

describe.each(['modern', 'legacy'] as const)('MCP Apps over stdio (%s era)', (era) => {
  it('lists the views and their tools only to a client that declares the extension', async () => {
    const plain = await connect(era, false);
    const plainTools = (await plain.client.listTools()).tools;
    expect(plainTools.map((tool) => tool.name)).not.toContain('entity_history');
    expect(plainTools.every((tool) => tool._meta === undefined)).toBe(true);
    expect((await plain.client.listResources()).resources.map((r) => r.uri)).toEqual([
      'memory://knowledge-graph',
    ]);
    await plain.close();

    const host = await connect(era, true);
    const tools = (await host.client.listTools()).tools;
    for (const name of Object.keys(VIEW_TOOLS))
      expect(tools.map((tool) => tool.name)).toContain(name);
    expect(tools.find((tool) => tool.name === 'read_graph')!._meta).toMatchObject({
      ui: { resourceUri: VIEWS.graph.uri },
    });
    const uris = (await host.client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(Object.values(VIEWS).map((view) => view.uri)));
    await host.close();
  });
});
