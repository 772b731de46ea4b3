import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Entity, Relation, TypeList } from '@engram/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, type Account } from '../test/graph-fixtures.js';
import { accountIdOf, as, createTestApp, setPlan, signUp, type TestApp } from '../test/harness.js';
import { expectValidationError } from '../test/http-assertions.js';
import { callTool, connectMcp } from '../test/mcp-client.js';

// Issue 31, finding 4: one create_relations call with 20,000 distinct types
// made GET /api/relations/types and list_types answer 20,000 rows (the read
// cap is 1,000). Type lists now answer one page, most common first then by
// name, paged by cursor and searched by prefix in SQL. READ_MAX_ROWS is 500
// here, so a limit above it is cut to it.

const READ_MAX_ROWS = 500;
const TYPES = 20_000;
/** Types whose names would match far more than themselves if LIKE's wildcards were not escaped. */
const ODD = ['a_b', 'axb', '100%_sure'];

const pad = (i: number) => String(i).padStart(5, '0');
/** 20,000 distinct types, in two cases: 'REL_00000', 'rel_00001', …, and the odd ones. */
const typeNames = (stem: string) => [
  ...Array.from({ length: TYPES - ODD.length }, (_, i) =>
    i % 2 ? `${stem}_${pad(i)}` : `${stem.toUpperCase()}_${pad(i)}`,
  ),
  ...ODD,
];

let t: TestApp;
let base: string;
let rels: Account;
let kinds: Account;
let stranger: Account;
const clients: Client[] = [];
let relsMcp: Client;
let kindsMcp: Client;
const relationTypes = typeNames('rel');
const entityTypes = typeNames('kind');

type McpTypes = {
  entityTypes: { type: string; count: number }[];
  relationTypes: { type: string; count: number }[];
  nextCursor: string | null;
};

beforeAll(async () => {
  t = await createTestApp({ READ_MAX_ROWS: String(READ_MAX_ROWS) });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const signedUp = async () => {
    const { token, user } = await signUp(t.app);
    const account = { token, userId: user.id, email: user.email, req: as(t.app, token) };
    return { account, apiKey: user.apiKey };
  };
  const [r, k] = [await signedUp(), await signedUp()];
  [rels, kinds, stranger] = [r.account, k.account, await newAccount(t.app)];
  relsMcp = await connectMcp(base, r.apiKey);
  kindsMcp = await connectMcp(base, k.apiKey);
  clients.push(relsMcp, kindsMcp);

  // One call: 20,000 types A → B, the first 300 again A → C, the first 100 again B → C.
  await callTool(relsMcp, 'create_entities', {
    entities: ['A', 'B', 'C'].map((name) => ({ name, entityType: 'node', observations: [] })),
  });
  await callTool(relsMcp, 'create_relations', {
    relations: [
      ...relationTypes.map((relationType) => ({ from: 'A', to: 'B', relationType })),
      ...relationTypes.slice(0, 300).map((relationType) => ({ from: 'A', to: 'C', relationType })),
      ...relationTypes.slice(0, 100).map((relationType) => ({ from: 'B', to: 'C', relationType })),
    ],
  });

  // 20,000 entities of distinct types, and 200 more giving the first 100 types three each.
  await setPlan(t, kinds.userId, 'pro');
  await callTool(kindsMcp, 'create_entities', {
    entities: [
      ...entityTypes.map((entityType, i) => ({ name: `e${i}`, entityType, observations: [] })),
      ...Array.from({ length: 200 }, (_, i) => ({
        name: `extra${i}`,
        entityType: entityTypes[i % 100]!,
        observations: [],
      })),
    ],
  });
}, 600_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

async function typePage(account: Account, url: string): Promise<TypeList> {
  const response = await account.req({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TypeList>();
}

/** Every page of a list, following nextCursor; the pages' sizes too. */
async function allPages(account: Account, path: string, query: Record<string, string>) {
  const types: TypeList['types'] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const page = await typePage(account, `${path}?${params.toString()}`);
    types.push(...page.types);
    sizes.push(page.types.length);
    cursor = page.nextCursor;
  } while (cursor !== null && sizes.length <= TYPES);
  return { types, sizes };
}

/** Most common first: the counts never rise along the list. */
function expectCountsDescending(counts: number[]) {
  for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeLessThanOrEqual(counts[i - 1]!);
}

const lists = [
  {
    kind: 'relation',
    path: '/api/relations/types',
    names: relationTypes,
    account: () => rels,
    mcp: () => relsMcp,
    field: 'relationTypes' as const,
  },
  {
    kind: 'entity',
    path: '/api/entities/types',
    names: entityTypes,
    account: () => kinds,
    mcp: () => kindsMcp,
    field: 'entityTypes' as const,
  },
];

describe.each(lists)('$kind types: 20,000 of them', ({ path, names, account, mcp, field }) => {
  const stem = field === 'relationTypes' ? 'rel' : 'kind';

  it('GET answers one page (100 by default, READ_MAX_ROWS at most) with a nextCursor', async () => {
    const first = await typePage(account(), path);
    expect(Object.keys(first).sort()).toEqual(['nextCursor', 'types']);
    expect(first.types).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    // Each row keeps the fields it always had; the 100 most common (count 3) lead.
    expect(Object.keys(first.types[0]!).sort()).toEqual(['count', 'label', 'type']);
    expect(new Set(first.types.map((row) => row.type))).toEqual(new Set(names.slice(0, 100)));
    expect(first.types.every((row) => row.count === 3)).toBe(true);
    expect(first.types.find((row) => row.type === names[1])?.label).toBe(
      `${stem[0]!.toUpperCase()}${stem.slice(1)} ${pad(1)}`,
    );

    const big = await typePage(account(), `${path}?limit=1000`);
    expect(big.types).toHaveLength(READ_MAX_ROWS);
    expect(big.nextCursor).toEqual(expect.any(String));
  });

  it('paging by cursor reaches every type exactly once, most common first', async () => {
    const { types, sizes } = await allPages(account(), path, { limit: '1000' });
    expect(sizes).toEqual(Array.from({ length: TYPES / READ_MAX_ROWS }, () => READ_MAX_ROWS));
    expect(types).toHaveLength(TYPES);
    expect(new Set(types.map((row) => row.type))).toEqual(new Set(names));
    expectCountsDescending(types.map((row) => row.count));
    // The ties (count 1) are in name order as the database sorts names: a cursor can follow it.
    const counts = new Map(types.map((row) => [row.type, row.count]));
    expect(counts.get(names[0]!)).toBe(3);
    expect(counts.get(names[150]!)).toBe(field === 'relationTypes' ? 2 : 1);
    expect(counts.get(names[19_000]!)).toBe(1);
  });

  it('prefix keeps the types starting with it, in any case, and pages too', async () => {
    const page = await typePage(account(), `${path}?prefix=${stem.toUpperCase()}_0001`);
    // 'REL_00010', 'rel_00011', … 'rel_00019': both cases, ten types.
    expect(page.types.map((row) => row.type).sort()).toEqual(names.slice(10, 20).sort());
    expect(page.nextCursor).toBeNull();

    const { types, sizes } = await allPages(account(), path, {
      prefix: `${stem}_0`,
      limit: '1000',
    });
    expect(sizes).toHaveLength(10_000 / READ_MAX_ROWS);
    expect(new Set(types.map((row) => row.type))).toEqual(new Set(names.slice(0, 10_000)));
    expect(types).toHaveLength(10_000);

    // LIKE's wildcards stand for themselves.
    const odd = async (prefix: string) =>
      (await typePage(account(), `${path}?prefix=${encodeURIComponent(prefix)}`)).types.map(
        (row) => row.type,
      );
    expect(await odd('a_')).toEqual(['a_b']);
    expect(await odd('100%')).toEqual(['100%_sure']);
    expect(await odd('%')).toEqual([]);
    expect(await odd('\\')).toEqual([]);
    expect(await odd('zzz')).toEqual([]);
  });

  it('a bad cursor, limit or prefix is a 400 naming the field', async () => {
    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const badCursors = [
      'not a cursor!',
      '',
      Buffer.from('not json').toString('base64url'),
      cursorOf({ count: 1, type: 'x' }),
      cursorOf([0, 'x']),
      cursorOf([1.5, 'x']),
      cursorOf([1, '']),
      cursorOf([1, 'x'.repeat(101)]),
      cursorOf([1, 'x', 'extra']),
      `${cursorOf([1, 'x'])}=`,
      'A'.repeat(3000),
    ];
    for (const cursor of badCursors) {
      const response = await account().req({
        method: 'GET',
        url: `${path}?cursor=${encodeURIComponent(cursor)}`,
      });
      expectValidationError(response, ['query.cursor']);
    }
    for (const limit of ['0', '-1', '1001', '1.5', 'ten', '']) {
      const response = await account().req({ method: 'GET', url: `${path}?limit=${limit}` });
      expectValidationError(response, ['query.limit']);
    }
    expectValidationError(
      await account().req({ method: 'GET', url: `${path}?prefix=${'x'.repeat(101)}` }),
      ['query.prefix'],
    );
  });

  it('another account sees none of them', async () => {
    expect(await typePage(stranger, path)).toEqual({ types: [], nextCursor: null });
  });

  it('MCP list_types answers one page of each list, says how to get more, and pages to the end', async () => {
    const result = (await mcp().callTool({
      name: 'list_types',
      arguments: {},
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const first = result.structuredContent as McpTypes;
    expect(first[field]).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    const [text] = result.content;
    expect(text?.type === 'text' ? text.text : '').toMatch(
      /\n\n\(truncated: more types follow; call list_types with cursor "[A-Za-z0-9_-]+" and the same prefix for the next page\)$/,
    );

    const seen: McpTypes[typeof field] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const page: McpTypes = await callTool<McpTypes>(mcp(), 'list_types', {
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      expect(page[field].length).toBeLessThanOrEqual(READ_MAX_ROWS);
      seen.push(...page[field]);
      cursor = page.nextCursor;
      calls += 1;
    } while (cursor !== null && calls <= TYPES);
    expect(calls).toBe(TYPES / READ_MAX_ROWS);
    expect(seen).toHaveLength(TYPES);
    expect(new Set(seen.map((row) => row.type))).toEqual(new Set(names));
    expectCountsDescending(seen.map((row) => row.count));

    const found = await callTool<McpTypes>(mcp(), 'list_types', { prefix: `${stem}_0001` });
    expect(found[field].map((row) => row.type).sort()).toEqual(names.slice(10, 20).sort());
    expect(found.nextCursor).toBeNull();
  });

  it('MCP list_types refuses a bad cursor or limit', async () => {
    for (const args of [
      { cursor: 'garbage!' },
      { cursor: 'AAAA' },
      { limit: 0 },
      { limit: 5000 },
    ]) {
      const outcome = await mcp()
        .callTool({ name: 'list_types', arguments: args })
        .then(
          (result) => result as CallToolResult,
          (error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }),
        );
      expect(outcome.isError, JSON.stringify(args)).toBe(true);
      const [text] = outcome.content;
      expect(text?.type === 'text' ? text.text : '').toMatch('cursor' in args ? /cursor/ : /limit/);
    }
  });
});

describe('relation type counts follow every write', () => {
  /** The counts the lists read, against a count over the relations themselves. */
  async function expectCountsTrue(account: Account) {
    const accountId = await accountIdOf(t, account.userId);
    const kept = await t.database.db
      .selectFrom('relation_type_counts')
      .select(['type', 'count'])
      .where('space_id', '=', accountId)
      .orderBy('type')
      .execute();
    const counted = await t.database.db
      .selectFrom('relations')
      .select(['type', sql<number>`count(*)::int`.as('count')])
      .where('space_id', '=', accountId)
      .groupBy('type')
      .orderBy('type')
      .execute();
    expect(kept).toEqual(counted);
    return kept;
  }

  it('creates, type changes, deletes and an entity deleted with its relations', async () => {
    const account = await newAccount(t.app);
    const create = async (name: string) =>
      (
        await account.req({ method: 'POST', url: '/api/entities', payload: { name, type: 'x' } })
      ).json<Entity>();
    const [a, b, c] = [await create('a'), await create('b'), await create('c')];
    const relate = async (from: Entity, to: Entity, type: string) =>
      (
        await account.req({
          method: 'POST',
          url: '/api/relations',
          payload: { fromEntityId: from.id, toEntityId: to.id, type },
        })
      ).json<Relation>();
    const ab = await relate(a, b, 'knows');
    await relate(a, c, 'knows');
    await relate(b, c, 'likes');
    expect(await expectCountsTrue(account)).toEqual([
      { type: 'knows', count: 2 },
      { type: 'likes', count: 1 },
    ]);

    await account.req({
      method: 'PUT',
      url: `/api/relations/${ab.id}`,
      payload: { type: 'likes' },
    });
    expect(await expectCountsTrue(account)).toEqual([
      { type: 'knows', count: 1 },
      { type: 'likes', count: 2 },
    ]);

    await account.req({ method: 'DELETE', url: `/api/entities/${c.id}` });
    expect(await expectCountsTrue(account)).toEqual([{ type: 'likes', count: 1 }]);
    expect(await typePage(account, '/api/relations/types')).toEqual({
      types: [{ type: 'likes', label: 'Likes', count: 1 }],
      nextCursor: null,
    });

    await account.req({ method: 'DELETE', url: `/api/relations/${ab.id}` });
    expect(await expectCountsTrue(account)).toEqual([]);
  });

  it('the 20,000-type account agrees too', async () => {
    expect(await expectCountsTrue(rels)).toHaveLength(TYPES);
  });
});
