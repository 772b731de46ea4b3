import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../test/harness.js';
import { seededRandom } from '../test/http-assertions.js';
import { callTool, connectMcp, connectMcpModern } from '../test/mcp-client.js';

/**
 * Deterministic fuzzing of /mcp: tool calls whose arguments are broken in
 * every way a client can break them, and malformed JSON-RPC sent raw. No
 * answer is a 5xx, every bad call gets an error, the server keeps serving,
 * and the account's graph is exactly as before.
 */

const SEED = 0x3c9f2026;
let t: TestApp;
let base: string;
let client: Client;
/** The same account over the 2026-07-28 stateless lane (SDK v2 client). */
let modernClient: Awaited<ReturnType<typeof connectMcpModern>>;
let apiKey: string;
let sessionId: string;

beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  ({
    user: { apiKey },
  } = await signUp(t.app));
  client = await connectMcp(base, apiKey);
  await callTool(client, 'create_entities', {
    entities: [
      { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
      { name: 'Engine', entityType: 'machine', observations: ['analytical'] },
    ],
  });
  await callTool(client, 'create_relations', {
    relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }],
  });
  sessionId = (client.transport as unknown as { sessionId: string }).sessionId;
  modernClient = await connectMcpModern(base, apiKey);
});
afterAll(async () => {
  await modernClient.close();
  await client.close();
  await t.close();
});

/** Values of the wrong type (or shape) for any field, and strings the database must refuse. */
const WRONG: unknown[] = [
  null,
  0,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER,
  true,
  {},
  [],
  [null],
  [0, 1],
  { nested: { deep: [1, { x: null }] } },
  'x'.repeat(20_000),
  'nul\u0000inside',
  ['nul\u0000inside'],
  [{}],
  [{ name: 1 }],
  JSON.parse('{"__proto__":{"polluted":true}}'),
];

/** A valid argument object for each writing tool (the fuzzer breaks one part of it). */
const TEMPLATES: Record<string, () => Record<string, unknown>> = {
  create_entities: () => ({
    entities: [{ name: 'New', entityType: 'thing', observations: ['fact'] }],
  }),
  create_relations: () => ({
    relations: [{ from: 'Ada', to: 'Engine', relationType: 'admired' }],
  }),
  add_observations: () => ({ observations: [{ entityName: 'Ada', contents: ['more'] }] }),
  delete_entities: () => ({ entityNames: ['Engine'] }),
  delete_observations: () => ({
    deletions: [{ entityName: 'Ada', observations: ['wrote the first program'] }],
  }),
  delete_relations: () => ({
    relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }],
  }),
  update_entity: () => ({ name: 'Ada', newName: 'Ada L.', entityType: 'person', metadata: {} }),
  merge_entities: () => ({ target: 'Ada', sources: ['Ada L.'], name: 'Ada Lovelace' }),
};
const READS = [
  'read_graph',
  'search_nodes',
  'open_nodes',
  'get_neighbors',
  'find_path',
  'list_types',
  'find_duplicates',
];

type Random = ReturnType<typeof seededRandom>;

/** Replaces one leaf of the template (top level or inside the first item) with a wrong value. */
function broken(random: Random, template: Record<string, unknown>): unknown {
  const wrong = random.pick(WRONG);
  const key = random.pick(Object.keys(template));
  const value = template[key];
  if (
    Array.isArray(value) &&
    typeof value[0] === 'object' &&
    value[0] !== null &&
    random.chance(0.6)
  ) {
    const item = { ...(value[0] as Record<string, unknown>) };
    const field = random.pick(Object.keys(item));
    // An array field inside an item: break one of its elements instead, sometimes.
    if (Array.isArray(item[field]) && random.chance(0.5)) item[field] = [wrong];
    else item[field] = wrong;
    return { ...template, [key]: [item] };
  }
  if (random.chance(0.1)) return random.pick([null, 'text', [template], 7]);
  return { ...template, [key]: wrong };
}

/** Whether the wrong value could still be valid (so the call might really write). */
function mayBeValid(args: unknown): boolean {
  // An empty list, or the template unchanged, is valid; a __proto__ key is dropped by JSON.
  return JSON.stringify(args).includes('"polluted"') || JSON.stringify(args).includes('[]');
}

async function graphNow() {
  return callTool(client, 'read_graph', {});
}

async function rawPost(body: string, headers: Record<string, string> = {}) {
  return fetch(new URL('/mcp', base), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      ...headers,
    },
    body,
  });
}

describe('fuzz /mcp', () => {
  it.each(['legacy', 'modern'] as const)(
    'answers every broken tool call with an error and changes nothing (%s era)',
    async (era) => {
      const caller = era === 'legacy' ? client : modernClient;
      const random = seededRandom(SEED);
      const before = await graphNow();
      const seqBefore = await latestSeq();
      const unexpected: string[] = [];
      let sent = 0;
      for (let i = 0; i < 300; i++) {
        const tool = random.chance(0.85) ? random.pick(Object.keys(TEMPLATES)) : random.pick(READS);
        const template = TEMPLATES[tool]?.() ?? {
          query: 'Ada',
          name: 'Ada',
          from: 'Ada',
          to: 'Engine',
        };
        const args = broken(random, template);
        if (TEMPLATES[tool] && mayBeValid(args)) continue;
        sent += 1;
        try {
          const result = await caller.callTool({
            name: random.chance(0.05) ? 'no_such_tool' : tool,
            arguments: args as Record<string, unknown>,
          });
          if (TEMPLATES[tool] && !result.isError) {
            unexpected.push(`${tool} ${JSON.stringify(args).slice(0, 200)} succeeded`);
          }
        } catch (error) {
          // A protocol error (invalid params, unknown tool) is a fine answer, and so is the 400
          // for a body carrying a __proto__ key; a broken transport or a 5xx is not.
          const message = String((error as Error).message);
          const code = (error as { code?: unknown }).code;
          const fine =
            /MCP error -32\d{3}/.test(message) ||
            /"code":"VALIDATION_ERROR"/.test(message) ||
            (typeof code === 'number' && code <= -32000 && code >= -32999);
          if (!fine) unexpected.push(`${tool}: ${message.slice(0, 200)}`);
        }
      }
      expect(unexpected).toEqual([]);
      expect(sent).toBeGreaterThan(200);
      expect(await graphNow()).toEqual(before);
      expect(await latestSeq()).toBe(seqBefore);
    },
  );

  it('answers malformed JSON-RPC below 500 and keeps serving', async () => {
    const random = seededRandom(SEED + 1);
    const bodies = [
      '',
      '{',
      'null',
      '[]',
      '"text"',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","method":"tools/call"}',
      '{"jsonrpc":"2.0","id":{},"method":"tools/call","params":7}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":null}}',
      '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"memory://elsewhere"}}',
      '{"jsonrpc":"2.0","id":4,"method":"no/such/method"}',
      '[{"jsonrpc":"2.0","id":5,"method":"tools/list"},{"bad":true}]',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/call',
        params: { name: 'read_graph', arguments: { limit: -5 } },
      }),
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: {} }),
    ];
    for (let i = 0; i < 40; i++) {
      const depth = 1 + random.int(200);
      bodies.push(
        JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: JSON.parse('['.repeat(depth) + ']'.repeat(depth)),
        }),
      );
    }
    for (const body of bodies) {
      const response = await rawPost(body);
      await response.text();
      expect(response.status, body.slice(0, 100)).toBeLessThan(500);
    }
    const wrongType = await rawPost('{}', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBeLessThan(500);
    // Still serving, on the same session.
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(9);
  });
});

async function latestSeq(): Promise<number> {
  const rows = await t.database.withSession((session) =>
    session.query<{ seq: number }>('select coalesce(max(event_seq), 0)::int as seq from accounts'),
  );
  return rows[0]!.seq;
}
