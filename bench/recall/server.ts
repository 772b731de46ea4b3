/**
 * The server under test and the account the bench acts with: a real `engram
 * serve` in its own process (bench/realtime's starter: sources through tsx,
 * a fresh PGlite folder or a fresh PostgreSQL database dropped afterwards),
 * a fresh account signed up through /auth/register, moved to the plan that
 * holds a million observations (no payment provider: it applies at once), and
 * an API key created through /api/keys — every step through HTTP, as a user.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createDatabase, startServer } from '../realtime/server.js';

export type DbKind = 'pglite' | 'postgres';

export interface Api {
  url: string;
  /** GET or POST with the account's API key; throws unless the status is `expect`. */
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown, expect?: number): Promise<T>;
  /** The raw answer (for status checks such as "is /api/recall there?"). */
  raw(path: string): Promise<Response>;
  /** One MCP tool call through a real MCP client (1.x SDK, a session) with the API key. */
  tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface Engram {
  kind: DbKind;
  where: string;
  api: Api;
  close(): Promise<void>;
}

const CALL_TIMEOUT_MS = 30 * 60 * 1000;

async function send(
  url: string,
  method: string,
  bearer: string,
  body: unknown,
  expect: number,
): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expect) {
    throw new Error(`${method} ${new URL(url).pathname}: ${response.status} ${text.slice(0, 300)}`);
  }
  return text ? JSON.parse(text) : undefined;
}

/** Signs up, moves to the Power User plan (1M entities), creates an API key: returns it. */
async function freshAccount(url: string): Promise<string> {
  const signedUp = (await send(
    `${url}/auth/register`,
    'POST',
    '',
    {
      email: `bench-recall-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
      password: 'Password123',
      firstName: 'Bench',
      lastName: 'Recall',
    },
    201,
  )) as { token: string };
  await send(
    `${url}/api/billing/change-plan`,
    'POST',
    signedUp.token,
    { planId: 'team', priceId: 'price_team_monthly' },
    200,
  );
  const key = (await send(
    `${url}/api/keys`,
    'POST',
    signedUp.token,
    { name: 'bench-recall' },
    201,
  )) as { apiKey: string };
  return key.apiKey;
}

export async function startEngram(kind: DbKind, postgresUrl: string): Promise<Engram> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-recall-'));
  const database = kind === 'postgres' ? await createDatabase(postgresUrl) : undefined;
  const server = await startServer({ dataDir, databaseUrl: database?.url });
  let mcp: Client | undefined;
  const cleanup = async () => {
    await mcp?.close().catch(() => undefined);
    await server.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const apiKey = await freshAccount(server.url);
    const api: Api = {
      url: server.url,
      request: async <T>(method: 'GET' | 'POST', path: string, body?: unknown, expect = 200) =>
        (await send(`${server.url}${path}`, method, apiKey, body, expect)) as T,
      raw: (path) =>
        fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } }),
      async tool(name, args) {
        if (!mcp) {
          const client = new Client({ name: 'engram-bench-recall', version: '1.0.0' });
          await client.connect(
            new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
              requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
            }),
          );
          mcp = client;
        }
        const result = (await mcp.callTool({ name, arguments: args }, undefined, {
          timeout: CALL_TIMEOUT_MS,
          maxTotalTimeout: CALL_TIMEOUT_MS,
        })) as CallToolResult;
        if (result.isError) {
          const first = result.content[0];
          throw new Error(`${name}: ${first?.type === 'text' ? first.text.slice(0, 300) : '?'}`);
        }
        return (result.structuredContent ?? {}) as Record<string, unknown>;
      },
    };
    return {
      kind,
      where: database ? database.url : `PGlite in ${dataDir}`,
      api,
      close: cleanup,
    };
  } catch (error) {
    await cleanup().catch(() => undefined);
    throw error;
  }
}
