import { planById, type Entity, type MergeResult } from '@engram/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import { connectMcp } from '../../test/mcp-client.js';

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  await t.runtime.duplicates.finder.stop();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function account(plan = 'team') {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, plan);
  return { call: as(t.app, token), token, accountId: await accountIdOf(t, user.id) };
}

async function create(
  call: Call,
  name: string,
  type = 'person',
  observations: unknown[] = [],
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const response = await call({
    method: 'POST',
    url: '/api/entities',
    payload: { name, type, observations, metadata },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

async function relate(call: Call, from: string, to: string, type = 'knows') {
  const response = await call({
    method: 'POST',
    url: '/api/relations',
    payload: { fromEntityId: from, toEntityId: to, type },
  });
  expect(response.statusCode, response.body).toBe(201);
}

/** A real MCP client acting for the account through a new API key. */
async function agentOf(call: Call) {
  const key = (await call({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })).json<{
    apiKey: string;
  }>().apiKey;
  return connectMcp(baseUrl, key);
}

async function merge(call: Call, payload: Record<string, unknown>, status = 200) {
  const response = await call({ method: 'POST', url: '/api/entities/merge', payload });
  expect(response.statusCode, response.body).toBe(status);
  return response.json<MergeResult & { code: string; error: string }>();
}

/** Every row of the space's graph and counters, as the database holds them. */
async function snapshot(accountId: string) {
  const space = await sql<{ id: string }>`
    select id from spaces where account_id = ${accountId} and slug = 'default'
  `.execute(t.database.db);
  const spaceId = space.rows[0]!.id;
  const rows = async (query: ReturnType<typeof sql>) =>
    (await query.execute(t.database.db)).rows.map((row) => JSON.stringify(row)).sort();
  return {
    entities: await rows(sql`select id, name, type, metadata::text, aliases, observations_count,
                                    created_at from entities where space_id = ${spaceId}`),
    observations: await rows(sql`select id, entity_id, content, metadata::text, position,
                                        created_at, valid_from, valid_to
                                   from observations where space_id = ${spaceId}`),
    relations: await rows(sql`select id, from_id, to_id, type, created_at from relations
                               where space_id = ${spaceId}`),
    degrees: await rows(sql`select entity_id, degree from entity_degrees
                             where space_id = ${spaceId} and degree > 0`),
    types: await rows(sql`select type, count from entity_type_counts where space_id = ${spaceId}`),
    counters:
      await rows(sql`select entity_count::int, observation_count::int, relation_count::int from spaces
                              where id = ${spaceId}`),
  };
}

describe('POST /api/entities/merge', () => {
  it('moves observations and relations, keeps equal texts once, and names the sources as aliases', async () => {
    const { call } = await account();
    const ada = await create(call, 'Ada Lovelace', 'person', ['Wrote the first program.'], {
      born: 1815,
    });
    const short = await create(
      call,
      'A. Lovelace',
      'person',
      ['wrote the first  program', 'Met Babbage'],
      {
        born: 1900,
        title: 'Countess',
      },
    );
    const lower = await create(call, 'ada lovelace', 'human', ['Loved poetry']);
    const babbage = await create(call, 'Charles Babbage');
    const engine = await create(call, 'Analytical Engine', 'machine');
    await relate(call, short, babbage);
    await relate(call, ada, babbage); // the same relation once merged: one is dropped
    await relate(call, lower, engine, 'described');
    await relate(call, short, ada, 'same as'); // a loop once merged: dropped

    const answer = await merge(call, { targetId: ada, sourceIds: [short, lower] });
    expect(answer.merged).toEqual({
      entities: 2,
      observations: 2,
      relations: 1,
      duplicatesDropped: 3,
    });
    expect(answer.callSeq).toBeGreaterThan(0);
    expect(answer.entity).toMatchObject({
      id: ada,
      name: 'Ada Lovelace',
      type: 'person',
      metadata: { born: 1815, title: 'Countess' },
    });
    expect([...answer.entity.aliases].sort()).toEqual(['A. Lovelace', 'ada lovelace']);
    expect(answer.entity.observations.map((o) => o.content)).toEqual([
      'Wrote the first program.',
      'Met Babbage',
      'Loved poetry',
    ]);
    for (const gone of [short, lower]) {
      expect((await call({ method: 'GET', url: `/api/entities/${gone}` })).statusCode).toBe(404);
    }
    const relations = await call({ method: 'GET', url: `/api/relations?entityId=${ada}` });
    expect(
      relations
        .json<{ relations: { toEntity: { name: string }; type: string }[] }>()
        .relations.map((r) => `${r.type} ${r.toEntity.name}`)
        .sort(),
    ).toEqual(['described Analytical Engine', 'knows Charles Babbage']);
  });

  it('is undone exactly by reverting its call, and shows in every entity’s history', async () => {
    const { call, accountId } = await account();
    const ada = await create(call, 'Ada', 'person', [
      'likes tea',
      { content: 'born 1815', validFrom: '1815-12-10' },
    ]);
    const other = await create(call, 'Ada L.', 'human', ['Likes tea.', 'met Babbage'], { x: 1 });
    const babbage = await create(call, 'Babbage');
    await relate(call, other, babbage);
    await relate(call, ada, babbage);
    const before = await snapshot(accountId);

    const { callSeq } = await merge(call, {
      targetId: ada,
      sourceIds: [other],
      name: 'Ada Lovelace',
      type: 'mathematician',
    });
    const history = await call({ method: 'GET', url: `/api/entities/${other}/history` });
    expect(history.statusCode).toBe(200);
    expect(JSON.stringify(history.json())).toContain('entity_merged');
    const targetHistory = await call({ method: 'GET', url: `/api/entities/${ada}/history` });
    expect(JSON.stringify(targetHistory.json())).toContain('entity_merged');

    const revert = await call({ method: 'POST', url: `/api/changes/${callSeq}/revert` });
    expect(revert.statusCode, revert.body).toBe(200);
    expect(await snapshot(accountId)).toEqual(before);
  });

  it('resolves aliases through the by-name doors and refuses them as new names', async () => {
    const { call } = await account();
    const ada = await create(call, 'Ada Lovelace');
    const short = await create(call, 'A. Lovelace');
    await merge(call, { targetId: ada, sourceIds: [short] });

    const again = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'A. Lovelace', type: 'person' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('"A. Lovelace" is an alias of "Ada Lovelace"');

    const found = await call({ method: 'GET', url: '/api/entities?query=a.%20lovelace' });
    expect(found.json<{ entities: Entity[] }>().entities.map((e) => e.name)).toEqual([
      'Ada Lovelace',
    ]);

    const other = await create(call, 'Grace Hopper');
    const taken = await call({
      method: 'PUT',
      url: `/api/entities/${other}`,
      payload: { name: 'Grace Hopper', type: 'person', aliases: ['A. Lovelace'] },
    });
    expect(taken.statusCode).toBe(409);
    const named = await call({
      method: 'PUT',
      url: `/api/entities/${other}`,
      payload: { name: 'Grace Hopper', type: 'person', aliases: ['Ada Lovelace'] },
    });
    expect(named.statusCode).toBe(409);
    const fine = await call({
      method: 'PUT',
      url: `/api/entities/${other}`,
      payload: {
        name: 'Grace Hopper',
        type: 'person',
        aliases: [' Amazing Grace ', 'Amazing Grace'],
      },
    });
    expect(fine.statusCode, fine.body).toBe(200);
    expect(fine.json<Entity>().aliases).toEqual(['Amazing Grace']);
    const tooMany = await call({
      method: 'PUT',
      url: `/api/entities/${other}`,
      payload: {
        name: 'Grace Hopper',
        type: 'person',
        aliases: Array.from({ length: 21 }, (_, index) => `g${index}`),
      },
    });
    expect(tooMany.statusCode).toBe(400);

    // MCP's by-name writes reach the entity by an alias.
    const client = await agentOf(call);
    try {
      const added = await client.callTool({
        name: 'add_observations',
        arguments: { observations: [{ entityName: 'A. Lovelace', contents: ['wrote notes'] }] },
      });
      expect(added.isError, JSON.stringify(added)).toBeFalsy();
      const created = await client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'A. Lovelace', entityType: 'person', observations: [] }] },
      });
      expect(created.structuredContent).toMatchObject({ entities: [] });
      const related = await client.callTool({
        name: 'create_relations',
        arguments: {
          relations: [{ from: 'Amazing Grace', to: 'A. Lovelace', relationType: 'admired' }],
        },
      });
      expect(related.isError, JSON.stringify(related)).toBeFalsy();
      const searched = await client.callTool({
        name: 'search_nodes',
        arguments: { query: 'amazing grace' },
      });
      expect(searched.structuredContent).toMatchObject({ entities: [{ name: 'Grace Hopper' }] });
      const opened = await client.callTool({
        name: 'open_nodes',
        arguments: { names: ['A. Lovelace'] },
      });
      expect(opened.structuredContent).toMatchObject({
        entities: [{ name: 'Ada Lovelace', observations: ['wrote notes'] }],
      });
    } finally {
      await client.close();
    }
  });

  it('refuses bad input, other spaces and viewers, and writes nothing', async () => {
    const { call } = await account();
    const a = await create(call, 'One');
    const b = await create(call, 'Two');
    expect((await merge(call, { targetId: a, sourceIds: [a] }, 400)).code).toBe('VALIDATION_ERROR');
    await merge(call, { targetId: a, sourceIds: [] }, 400);
    await merge(call, { targetId: a, sourceIds: Array.from({ length: 21 }, () => b) }, 400);
    await merge(call, { targetId: a, sourceIds: ['not-an-id'] }, 404);
    const stranger = await account();
    const theirs = await create(stranger.call, 'Theirs');
    await merge(call, { targetId: a, sourceIds: [theirs] }, 404);
    await merge(stranger.call, { targetId: theirs, sourceIds: [a] }, 404);
    await create(call, 'Taken');
    await merge(call, { targetId: a, sourceIds: [b], name: 'Taken' }, 409);
    expect((await call({ method: 'GET', url: `/api/entities/${b}` })).statusCode).toBe(200);
  });

  it('is refused past the plan’s observations per entity, with nothing written', async () => {
    const { call } = await account('free');
    const half = Math.ceil(planById('free').features.maxObservationsPerEntity / 2) + 1;
    const a = await create(
      call,
      'Left',
      'x',
      Array.from({ length: half }, (_, i) => `left ${i}`),
    );
    const b = await create(
      call,
      'Right',
      'x',
      Array.from({ length: half }, (_, i) => `right ${i}`),
    );
    const refused = await merge(call, { targetId: a, sourceIds: [b] }, 402);
    expect(refused.code).toBe('PLAN_LIMIT_REACHED');
    expect((await call({ method: 'GET', url: `/api/entities/${b}` })).statusCode).toBe(200);
  });
});

describe('concurrent merges of overlapping entities', () => {
  it('never lose an observation or leave a relation or a counter behind', async () => {
    const { call, accountId } = await account();
    const ids: string[] = [];
    for (const letter of ['A', 'B', 'C', 'D']) {
      ids.push(
        await create(call, `Node ${letter}`, 'thing', [`fact of ${letter}`, `more ${letter}`]),
      );
    }
    const hub = await create(call, 'Hub', 'thing');
    for (const id of ids) await relate(call, id, hub);
    const [a, b, c, d] = ids as [string, string, string, string];
    const answers = await Promise.all([
      call({
        method: 'POST',
        url: '/api/entities/merge',
        payload: { targetId: a, sourceIds: [b, c] },
      }),
      call({
        method: 'POST',
        url: '/api/entities/merge',
        payload: { targetId: c, sourceIds: [d, a] },
      }),
      call({
        method: 'POST',
        url: '/api/entities/merge',
        payload: { targetId: d, sourceIds: [b] },
      }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual(
      answers.map((answer) => (answer.statusCode === 200 ? 200 : 404)).sort(),
    );
    const after = await snapshot(accountId);
    const texts = after.observations.map((row) => JSON.parse(row).content as string).sort();
    expect(texts).toEqual(
      ['A', 'B', 'C', 'D'].flatMap((letter) => [`fact of ${letter}`, `more ${letter}`]).sort(),
    );
    const entityIds = new Set(after.entities.map((row) => JSON.parse(row).id as string));
    for (const row of after.observations)
      expect(entityIds.has(JSON.parse(row).entity_id)).toBe(true);
    for (const row of after.relations) {
      const relation = JSON.parse(row) as { from_id: string; to_id: string };
      expect(entityIds.has(relation.from_id) && entityIds.has(relation.to_id)).toBe(true);
    }
    // Every counter agrees with the rows.
    const counts = after.entities.map(
      (row) => JSON.parse(row) as { id: string; observations_count: number },
    );
    for (const entity of counts) {
      expect(entity.observations_count).toBe(
        after.observations.filter((row) => JSON.parse(row).entity_id === entity.id).length,
      );
    }
    const survivors = after.entities.length - 1; // all but the hub
    expect(after.relations).toHaveLength(survivors);
    expect(after.counters).toEqual([
      JSON.stringify({
        entity_count: after.entities.length,
        observation_count: after.observations.length,
        relation_count: after.relations.length,
      }),
    ]);
  });
});

describe('adding an observation an entity already has', () => {
  it('is a no-op after normalising case, spacing and end punctuation (REST and MCP)', async () => {
    const { call } = await account();
    const id = await create(call, 'Tea Drinker', 'person', ['Likes green tea']);
    const added = await call({
      method: 'POST',
      url: `/api/entities/${id}/observations`,
      payload: { observations: ['likes  green tea.', 'LIKES GREEN TEA', 'Brews at 80 °C'] },
    });
    expect(added.statusCode, added.body).toBeLessThan(300);
    const entity = (await call({ method: 'GET', url: `/api/entities/${id}` })).json<Entity>();
    expect(entity.observations.map((o) => o.content)).toEqual([
      'Likes green tea',
      'Brews at 80 °C',
    ]);

    const client = await agentOf(call);
    try {
      const answer = await client.callTool({
        name: 'add_observations',
        arguments: {
          observations: [{ entityName: 'Tea Drinker', contents: ['Likes green tea!', 'naps'] }],
        },
      });
      expect(answer.structuredContent).toMatchObject({
        results: [{ entityName: 'Tea Drinker', addedObservations: ['naps'] }],
      });
    } finally {
      await client.close();
    }
  });
});

describe('possible duplicates of a create', () => {
  it('are named in the 201 body and in create_entities’ answer', async () => {
    const { call } = await account();
    const ada = await create(call, 'Ada Lovelace');
    await create(call, 'Grace Hopper');
    await t.runtime.duplicates.finder.drain();

    const response = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'ada  lovelace', type: 'person' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<{ possibleDuplicates: unknown[] }>();
    expect(body.possibleDuplicates).toEqual([
      { id: ada, name: 'Ada Lovelace', type: 'person', score: expect.any(Number) },
    ]);
    const unrelated = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Kubernetes', type: 'technology' },
    });
    expect(unrelated.json<{ possibleDuplicates: unknown[] }>().possibleDuplicates).toEqual([]);

    const client = await agentOf(call);
    try {
      const answer = await client.callTool({
        name: 'create_entities',
        arguments: {
          entities: [
            { name: 'Grace  hopper', entityType: 'person', observations: [] },
            { name: 'Alan Turing', entityType: 'person', observations: [] },
            // Existing, so skipped: never named as a duplicate of itself.
            { name: 'Grace Hopper', entityType: 'person', observations: [] },
          ],
        },
      });
      expect(answer.structuredContent).toMatchObject({
        entities: [{ name: 'Grace  hopper' }, { name: 'Alan Turing' }],
        possibleDuplicates: [
          { name: 'Grace  hopper', duplicateOf: 'Grace Hopper', score: expect.any(Number) },
        ],
      });
      expect(
        (answer.structuredContent as { possibleDuplicates: unknown[] }).possibleDuplicates,
      ).toHaveLength(1);
      const text = (answer.content as { text: string }[])[0]!.text;
      expect(text).toContain('Possible duplicates: "Grace  hopper" may be "Grace Hopper"');
    } finally {
      await client.close();
    }
  });
});

describe('aliases in the export', () => {
  it('are written by a lossless export and kept by its import', async () => {
    const { call } = await account();
    const ada = await create(call, 'Ada Lovelace');
    const short = await create(call, 'A. Lovelace');
    await merge(call, { targetId: ada, sourceIds: [short] });
    const document = JSON.parse((await call({ method: 'GET', url: '/api/export' })).body);
    expect(document.entities).toMatchObject([{ name: 'Ada Lovelace', aliases: ['A. Lovelace'] }]);

    const other = await account();
    const apiKey = (
      await other.call({ method: 'POST', url: '/api/keys', payload: { name: 'import' } })
    ).json<{ apiKey: string }>().apiKey;
    const auth = (await t.runtime.authenticate(apiKey))!;
    const space = await t.runtime.spaces.resolveSpace(auth, 'default', 'write', {});
    await t.runtime.transfer.importLossless(space, document);
    const list = await other.call({ method: 'GET', url: '/api/entities' });
    expect(list.json<{ entities: Entity[] }>().entities).toMatchObject([
      { name: 'Ada Lovelace', aliases: ['A. Lovelace'] },
    ]);
  });
});
