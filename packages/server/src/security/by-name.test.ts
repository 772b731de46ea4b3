import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RecallAnswer } from '@engram/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntity, getJson, newAccount, type Account } from '../test/graph-fixtures.js';
import { accountIdOf, createTestApp, type TestApp } from '../test/harness.js';
import { expectValidationError } from '../test/http-assertions.js';
import { callTool, connectMcp } from '../test/mcp-client.js';

// Issue "Hardening IV", items 6 (by-name lookups pick one entity, always the
// same), 7 (add_observations by an alias), 8 (open_nodes with a name and its
// aliases), 9 (times outside years 1 to 9999) and 10 (years read as written).

interface Graph {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: unknown[];
}

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

/** A fresh account, its REST requester and an MCP client with its API key. */
async function agent(): Promise<{ account: Account; client: Client; spaceId: string }> {
  const account = await newAccount(t.app);
  const { apiKey } = (
    await account.req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
  ).json<{ apiKey: string }>();
  const client = await connectMcp(base, apiKey);
  // The default space's id is the account's.
  return { account, client, spaceId: await accountIdOf(t, account.userId) };
}

async function setAliases(account: Account, id: string, name: string, aliases: string[]) {
  const response = await account.req({
    method: 'PUT',
    url: `/api/entities/${id}`,
    payload: { name, type: 'person', aliases },
  });
  expect(response.statusCode, response.body).toBe(200);
}

/**
 * Gives entities an alias directly in the database: the state an import
 * could once leave (one alias held by several entities, or an entity's name
 * another's alias), which writes refuse now.
 */
async function forceAlias(spaceId: string, ids: string[], alias: string) {
  for (const id of ids) {
    await sql`update entities set aliases = array_append(aliases, ${alias}::text)
               where space_id = ${spaceId} and id = ${id}`.execute(t.database.db);
  }
}

async function setCreatedAt(spaceId: string, id: string, at: string) {
  await sql`update entities set created_at = ${at}::timestamptz
             where space_id = ${spaceId} and id = ${id}`.execute(t.database.db);
}

async function observationsOf(account: Account, id: string): Promise<string[]> {
  const entity = await getJson<{ observations: { content: string }[] }>(
    account.req,
    `/api/entities/${id}`,
  );
  return entity.observations.map((observation) => observation.content);
}

describe('MCP add_observations by an alias', () => {
  it('answers what it added under the alias given, and adds a text once', async () => {
    const { account, client } = await agent();
    try {
      const ada = await createEntity(account.req, { name: 'Augusta Ada King', type: 'person' });
      await setAliases(account, ada.id, 'Augusta Ada King', ['Ada Lovelace']);
      const answer = await callTool<{
        results: { entityName: string; addedObservations: string[] }[];
      }>(client, 'add_observations', {
        observations: [
          { entityName: 'Ada Lovelace', contents: ['Wrote the first program'] },
          {
            entityName: 'Augusta Ada King',
            contents: ['Born in London', 'wrote the first program.'],
          },
        ],
      });
      expect(answer.results).toEqual([
        { entityName: 'Ada Lovelace', addedObservations: ['Wrote the first program'] },
        // The same text under the entity's name is not added twice.
        { entityName: 'Augusta Ada King', addedObservations: ['Born in London'] },
      ]);
      expect(await observationsOf(account, ada.id)).toEqual([
        'Wrote the first program',
        'Born in London',
      ]);
      // Given again, nothing is added.
      const again = await callTool<{ results: { addedObservations: string[] }[] }>(
        client,
        'add_observations',
        { observations: [{ entityName: 'Ada Lovelace', contents: ['Born in London'] }] },
      );
      expect(again.results).toEqual([{ entityName: 'Ada Lovelace', addedObservations: [] }]);
    } finally {
      await client.close();
    }
  });
});

describe('MCP open_nodes with a name and its aliases', () => {
  it('answers the entity once, each observation once', async () => {
    const { account, client } = await agent();
    try {
      const contents = Array.from({ length: 200 }, (_, n) => `Fact number ${n}`);
      const ada = await createEntity(account.req, {
        name: 'Ada',
        type: 'person',
        observations: contents,
      });
      const aliases = Array.from({ length: 20 }, (_, n) => `Ada alias ${n}`);
      await setAliases(account, ada.id, 'Ada', aliases);
      await createEntity(account.req, { name: 'Charles', type: 'person' });
      const graph = await callTool<Graph>(client, 'open_nodes', {
        names: ['Ada alias 3', 'Charles', 'Ada', ...aliases],
      });
      // In the order first named: Ada by its alias, then Charles.
      expect(graph.entities.map((entity) => entity.name)).toEqual(['Ada', 'Charles']);
      expect(graph.entities[0]!.observations).toEqual(contents);
    } finally {
      await client.close();
    }
  });
});

describe('a name or alias several entities go by', () => {
  it('resolves to the entity so named, else the earliest created, then the lowest id', async () => {
    const { account, client, spaceId } = await agent();
    try {
      const [first, second, third] = [
        await createEntity(account.req, { name: 'Pat one', type: 'person' }),
        await createEntity(account.req, { name: 'Pat two', type: 'person' }),
        await createEntity(account.req, { name: 'Pat three', type: 'person' }),
      ];
      await forceAlias(spaceId, [first!.id, second!.id, third!.id], 'Pat');
      // The one written last is the earliest created.
      await setCreatedAt(spaceId, second!.id, '2020-01-01T00:00:00Z');
      const opened = await callTool<Graph>(client, 'open_nodes', { names: ['Pat'] });
      expect(opened.entities.map((entity) => entity.name)).toEqual(['Pat two']);
      await callTool(client, 'add_observations', {
        observations: [{ entityName: 'Pat', contents: ['Goes by Pat'] }],
      });
      expect(await observationsOf(account, second!.id)).toEqual(['Goes by Pat']);
      expect(await observationsOf(account, first!.id)).toEqual([]);
      expect(await observationsOf(account, third!.id)).toEqual([]);
      await createEntity(account.req, { name: 'Acme', type: 'company' });
      await callTool(client, 'create_relations', {
        relations: [{ from: 'Pat', to: 'Acme', relationType: 'works_at' }],
      });
      const acme = await callTool<{ relations: { from: string; to: string }[] }>(
        client,
        'open_nodes',
        { names: ['Acme'] },
      );
      expect(acme.relations).toMatchObject([{ from: 'Pat two', to: 'Acme' }]);

      // Created at the same instant: the lowest id.
      for (const entity of [first!, second!, third!]) {
        await setCreatedAt(spaceId, entity.id, '2021-01-01T00:00:00Z');
      }
      const lowest = [first!, second!, third!].sort((a, b) => (a.id < b.id ? -1 : 1))[0]!;
      const tied = await callTool<Graph>(client, 'open_nodes', { names: ['Pat'] });
      expect(tied.entities.map((entity) => entity.name)).toEqual([lowest.name]);

      // A name wins over an earlier entity's alias.
      const holder = await createEntity(account.req, { name: 'Dana Scully', type: 'person' });
      const dana = await createEntity(account.req, { name: 'Dana', type: 'person' });
      await forceAlias(spaceId, [holder.id], 'Dana');
      await setCreatedAt(spaceId, holder.id, '2019-01-01T00:00:00Z');
      await callTool(client, 'add_observations', {
        observations: [{ entityName: 'Dana', contents: ['An FBI agent'] }],
      });
      expect(await observationsOf(account, dana.id)).toEqual(['An FBI agent']);
      expect(await observationsOf(account, holder.id)).toEqual([]);
      const named = await callTool<Graph>(client, 'open_nodes', { names: ['Dana'] });
      expect(named.entities.map((entity) => entity.name)).toEqual(['Dana']);
    } finally {
      await client.close();
    }
  });
});

describe('times outside years 1 to 9999', () => {
  it('are a 400 naming the field on a mem0 import, which writes nothing', async () => {
    const account = await newAccount(t.app);
    for (const createdAt of ['+275760-09-13T00:00:00', '0000-06-01T00:00:00Z']) {
      const response = await account.req({
        method: 'POST',
        url: '/api/import?format=mem0',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          results: [
            { id: 'm1', memory: 'Prefers tea', user_id: 'alice' },
            { id: 'm2', memory: 'Lives in Lyon', user_id: 'alice', created_at: createdAt },
          ],
        }),
      });
      const body = expectValidationError(response, ['results.1.created_at']);
      expect(body.error).toContain('results.1.created_at');
    }
    const listed = await getJson<{ entities: unknown[] }>(account.req, '/api/entities');
    expect(listed.entities).toEqual([]);
    // The last time there is is imported.
    const edge = await account.req({
      method: 'POST',
      url: '/api/import?format=mem0',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify([
        { memory: 'Far ahead', user_id: 'bob', created_at: '9999-12-31T23:59:59' },
      ]),
    });
    expect(edge.statusCode, edge.body).toBe(200);
  });

  it('are a 400 naming the field as recall since, until and now', async () => {
    const account = await newAccount(t.app);
    for (const [name, value] of [
      ['since', '0000-12-31'],
      ['until', '9999-12-31T23:00:00-05:00'],
      ['now', '0001-01-01T00:00:00+01:00'],
    ] as const) {
      const response = await account.req({
        method: 'GET',
        url: `/api/recall?q=tea&${name}=${encodeURIComponent(value)}`,
      });
      expectValidationError(response, [`query.${name}`]);
    }
  });
});

describe('recall reads years as written', () => {
  it('finds a fact dated 1843 by "in 1843" and "in September 1843"', async () => {
    const account = await newAccount(t.app);
    const created = await account.req({
      method: 'POST',
      url: '/api/entities',
      payload: {
        name: 'Ada',
        type: 'person',
        observations: [
          { content: 'Ada published her notes on the engine', validFrom: '1843-09-01' },
          { content: 'Ada published a letter on the engine', validFrom: '2024-09-01' },
        ],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const ask = (query: string) =>
      getJson<RecallAnswer>(account.req, `/api/recall?q=${encodeURIComponent(query)}`);
    for (const question of [
      'What did Ada publish in 1843?',
      'What did Ada publish in September 1843?',
    ]) {
      const answer = await ask(question);
      expect(answer.timeRange?.since, question).toMatch(/^1843-/);
      expect(
        answer.results.map((result) => result.observation),
        question,
      ).toEqual(['Ada published her notes on the engine']);
    }
  });
});
