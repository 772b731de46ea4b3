import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { planById } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUpAgent, type TestApp } from '../test/harness.js';
import { callTool, callToolError } from '../test/mcp-client.js';

// Filling the disk: the free plan caps entities, and now also observations
// per entity and stored bytes per account, through REST and MCP alike.

const FREE = planById('free').features;
/** What history counts for a row a call created (migration 026). */
const HISTORY_ROW = 64;
let t: TestApp;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

async function account() {
  const { rest, mcp, accountId } = await signUpAgent(t, base);
  clients.push(mcp);
  return { call: rest, client: mcp, accountId };
}

async function stored(accountId: string): Promise<number> {
  const [row] = await t.database.withSession((session) =>
    session.query<{ bytes: number }>(
      'select stored_bytes::float8 as bytes from accounts where id = $1',
      [accountId],
    ),
  );
  return row!.bytes;
}

/**
 * What the rows would count if summed from scratch (the triggers' rule: an
 * observation also counts 16 bytes per distinct word it is indexed by, and
 * each logged event's bytes, and the history kept of what changed).
 */
async function recount(accountId: string): Promise<number> {
  const [row] = await t.database.withSession((session) =>
    session.query<{ bytes: number }>(
      `select (coalesce((select sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) from entities where space_id = $1), 0)
             + coalesce((select sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) from observations where space_id = $1), 0)
             + coalesce((select sum(100 + octet_length(type)) from relations where space_id = $1), 0)
             + coalesce((select sum(bytes) from graph_events where account_id = $1), 0)
             + coalesce((select sum(bytes) from graph_history where space_id = $1), 0))::float8 as bytes`,
      [accountId],
    ),
  );
  return row!.bytes;
}

/** What the account's newest change-log event counts for. */
async function lastEventBytes(accountId: string): Promise<number> {
  const [row] = await t.database.withSession((session) =>
    session.query<{ bytes: number }>(
      'select bytes from graph_events where account_id = $1 order by seq desc limit 1',
      [accountId],
    ),
  );
  return row!.bytes;
}

async function setStored(accountId: string, bytes: number) {
  await t.database.withSession((session) =>
    session.query('update accounts set stored_bytes = $2 where id = $1', [accountId, bytes]),
  );
}

const entity = (name: string, observations: string[] = []) => ({
  method: 'POST' as const,
  url: '/api/entities',
  payload: { name, type: 'concept', metadata: {}, observations },
});

describe('stored bytes', () => {
  it('are counted in the write transaction through every kind of write, cascades included', async () => {
    const { call, client, accountId } = await account();
    const a = (await call(entity('alpha', ['one', 'two']))).json();
    const b = (await call(entity('beta'))).json();
    expect(await stored(accountId)).toBe(await recount(accountId));
    const writes = [
      await call({
        method: 'POST',
        url: `/api/entities/${a.id}/observations`,
        payload: { observations: ['three'] },
      }),
      await call({
        method: 'POST',
        url: '/api/relations',
        payload: { fromEntityId: a.id, toEntityId: b.id, type: 'knows' },
      }),
      await call({
        method: 'PUT',
        url: `/api/entities/${a.id}`,
        payload: {
          name: 'alpha-renamed',
          type: 'concept',
          metadata: { big: 'x'.repeat(500) },
          observations: ['one'],
        },
      }),
    ];
    expect(writes.map((w) => w.statusCode)).toEqual([201, 201, 200]);
    await callTool(client, 'create_entities', {
      entities: [{ name: 'gamma', entityType: 'mcp', observations: ['g1', 'g2'] }],
    });
    await callTool(client, 'add_observations', {
      observations: [{ entityName: 'gamma', contents: ['g3'] }],
    });
    expect(await stored(accountId)).toBe(await recount(accountId));
    expect(await stored(accountId)).toBeGreaterThan(1000);

    await call({ method: 'DELETE', url: `/api/entities/${a.id}` }); // cascades its observations and relation
    await callTool(client, 'delete_entities', { entityNames: ['gamma', 'beta'] });
    // The graph is gone; what is left is its change log and its history,
    // until they are compacted.
    expect(await stored(accountId)).toBe(await recount(accountId));
    const [kept] = await t.database.withSession((session) =>
      session.query<{ bytes: number }>(
        `select (select sum(bytes) from graph_events where account_id = $1)::float8
              + (select sum(bytes) from graph_history where space_id = $1)::float8 as bytes`,
        [accountId],
      ),
    );
    expect(await stored(accountId)).toBe(kept!.bytes);
  });
});

describe('the storage limit', () => {
  it('refuses a write past the plan’s bytes with 402 naming the limit, writes nothing, and lets deletes through', async () => {
    const { call, client, accountId } = await account();
    const kept = (await call(entity('kept', ['x'.repeat(1000)]))).json();
    await setStored(accountId, FREE.maxStorageBytes - 2_000);

    const big = await call(entity('too-big', ['y'.repeat(5_000)]));
    expect(big.statusCode).toBe(402);
    expect(big.json()).toEqual({
      error:
        'Storage limit reached: the Free plan allows 100 MB of stored memory. Delete something or upgrade your plan.',
      code: 'PLAN_LIMIT_REACHED',
    });
    const refused = await callToolError(client, 'create_entities', {
      entities: [{ name: 'too-big-mcp', entityType: 'x', observations: ['z'.repeat(5_000)] }],
    });
    expect(refused).toMatch(/Storage limit reached: the Free plan allows 100 MB/);
    const names = (await call({ method: 'GET', url: '/api/entities' }))
      .json()
      .entities.map((e: { name: string }) => e.name);
    expect(names).toEqual(['kept']);
    expect(await stored(accountId)).toBe(FREE.maxStorageBytes - 2_000);

    // A small write still fits; exactly at the limit is allowed.
    const fits = await call(entity('small'));
    expect(fits.statusCode).toBe(201);
    // 'exact' logs an event the size of 'small''s (names of the same length);
    // its observation is one word, indexed as one (16 bytes); history notes
    // the entity's and the observation's creation.
    const left =
      FREE.maxStorageBytes - (await stored(accountId)) - (await lastEventBytes(accountId));
    const exact = await call(
      entity('exact', [
        'e'.repeat(left - 100 - 16 - 200 - 'exact'.length - 'concept'.length - 2 - 2 * HISTORY_ROW),
      ]),
    );
    expect(exact.statusCode).toBe(201);
    expect(await stored(accountId)).toBe(FREE.maxStorageBytes);
    expect((await call(entity('one-more'))).statusCode).toBe(402);

    // Over the limit (a downgrade, say), deleting still works.
    await setStored(accountId, FREE.maxStorageBytes + 10_000);
    expect((await call({ method: 'DELETE', url: `/api/entities/${kept.id}` })).statusCode).toBe(
      200,
    );
  });

  it('never overshoots under concurrent writes', async () => {
    const { call, accountId } = await account();
    await call(entity('p-x'));
    // One entity with one observation (one word, indexed as one), its
    // change-log event, and history's note of both creations.
    const size =
      2 * HISTORY_ROW +
      200 +
      'p-0'.length +
      'concept'.length +
      2 +
      100 +
      1_000 +
      16 +
      (await lastEventBytes(accountId));
    await setStored(accountId, FREE.maxStorageBytes - 3 * size - 10);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(entity(`p-${i}`, ['o'.repeat(1_000)]))),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([201, 201, 201, 402, 402, 402, 402, 402, 402, 402]);
    expect(await stored(accountId)).toBeLessThanOrEqual(FREE.maxStorageBytes);
  });
});

describe('observations per entity', () => {
  it('allows exactly the plan’s number and refuses one more, through MCP and REST, writing nothing', async () => {
    const { call, client } = await account();
    const max = FREE.maxObservationsPerEntity;
    const contents = Array.from({ length: max - 1 }, (_, i) => `fact ${i}`);
    await callTool(client, 'create_entities', {
      entities: [{ name: 'dense', entityType: 'x', observations: contents }],
    });
    await callTool(client, 'add_observations', {
      observations: [{ entityName: 'dense', contents: ['the last'] }],
    });
    const refused = await callToolError(client, 'add_observations', {
      observations: [{ entityName: 'dense', contents: ['one too many', 'and another'] }],
    });
    expect(refused).toBe(
      'Observation limit reached: the Free plan allows 1,000 observations per entity ("dense" would have 1,002). Upgrade your plan to add more.',
    );
    const list = (await call({ method: 'GET', url: '/api/entities?query=dense' })).json();
    const dense = list.entities[0];
    expect(dense.observationsCount).toBe(max);
    const viaRest = await call({
      method: 'POST',
      url: `/api/entities/${dense.id}/observations`,
      payload: { observations: ['rest too'] },
    });
    expect(viaRest.statusCode).toBe(402);
    expect(viaRest.json().error).toMatch(/Observation limit reached/);

    // A new entity with too many observations at once is refused whole.
    const crowded = await callToolError(client, 'create_entities', {
      entities: [
        {
          name: 'crowded',
          entityType: 'x',
          observations: Array.from({ length: max + 1 }, (_, i) => `c${i}`),
        },
      ],
    });
    expect(crowded).toMatch(/Observation limit reached/);
    expect((await call({ method: 'GET', url: '/api/entities?query=crowded' })).json().total).toBe(
      0,
    );

    // The plan was read (and is kept a few seconds); an upgrade through billing applies at once.
    const upgraded = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'starter', priceId: 'price_starter_monthly' },
    });
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    const added = await callTool(client, 'add_observations', {
      observations: [{ entityName: 'dense', contents: ['one too many', 'and another'] }],
    });
    expect(added).toEqual({
      results: [{ entityName: 'dense', addedObservations: ['one too many', 'and another'] }],
    });
  });
});
