import { randomUUID } from 'node:crypto';
import { analyticsSummary, monthlySummary, realTimeStats, type Entity } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate.js';
import { migrations } from '../../db/migrations/index.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import {
  createEntity,
  createRelation,
  newAccount,
  type Requester,
} from '../../test/graph-fixtures.js';
import {
  accountIdOf,
  createTestApp,
  createEmptyTestDatabase,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import { callTool, callToolError, connectMcp } from '../../test/mcp-client.js';

let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

async function summaryOf(req: Requester) {
  const response = await req({ method: 'GET', url: '/api/analytics' });
  expect(response.statusCode, response.body).toBe(200);
  // The answer is exactly the shared schema (no field missing, none of the wrong type).
  return analyticsSummary.parse(response.json());
}

/** Rows as they are, counted the slow way, to hold the kept counters against. */
async function countedRows(accountId: string) {
  const count = async (table: 'entities' | 'relations' | 'observations') =>
    Number(
      (
        await t.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('space_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    totalEntities: await count('entities'),
    totalRelations: await count('relations'),
    totalObservations: await count('observations'),
  };
}

function authFor(accountId: string, userId: string): SpaceAuth {
  return {
    accountId,
    space: { id: accountId, slug: 'default' },
    userId,
    actor: { kind: 'user', id: userId },
    credential: { kind: 'session', id: randomUUID(), expiresAt: null },
    role: 'owner' as const,
  };
}

describe('GET /api/analytics', () => {
  it('needs a credential', async () => {
    for (const url of [
      '/api/analytics',
      '/api/analytics/stats/real-time',
      '/api/analytics/billing/monthly-summary',
      '/api/export',
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(401);
    }
  });

  it('answers every field for an empty account: zeros, empty lists, the free plan', async () => {
    const { req } = await newAccount(t.app);
    const summary = await summaryOf(req);
    expect(summary).toEqual({
      totalEntities: 0,
      accountEntities: 0,
      totalRelations: 0,
      totalObservations: 0,
      recentEntities: [],
      entityTypeStats: [],
      activityStats: [],
      userPlan: 'free',
      apiKeyCount: 0,
      webhookCount: 0,
      todayApiCalls: 0,
      monthlyUsage: { queries: 0, creates: 0, updates: 0, deletes: 0, total: 0 },
      billingData: {
        totalRequests: 0,
        breakdown: { query: 0, create: 0, update: 0, delete: 0 },
        details: [],
      },
      plan: {
        id: 'free',
        name: 'Free',
        limits: { entities: 1_000, operationsPerMonth: 15_000, apiKeys: 1, webhooks: 0 },
      },
      operationsThisMonth: 0,
      usageResetsAt: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
      dailyOperations: [],
    });
    const realTime = await req({ method: 'GET', url: '/api/analytics/stats/real-time' });
    expect(realTimeStats.parse(realTime.json())).toEqual({
      queries: 0,
      creates: 0,
      updates: 0,
      deletes: 0,
      total: 0,
    });
    const monthly = await req({ method: 'GET', url: '/api/analytics/billing/monthly-summary' });
    expect(monthlySummary.parse(monthly.json())).toEqual({
      totalRequests: 0,
      breakdown: { query: 0, create: 0, update: 0, delete: 0 },
      details: [],
    });
  });

  it('answers every field for a seeded account, with true numbers', async () => {
    const { req, userId, token } = await newAccount(t.app);
    const accountId = await accountIdOf(t, userId);
    const made: Entity[] = [];
    const types = ['person', 'person', 'person', 'company', 'company', 'concept', 'event'];
    for (const [i, type] of types.entries()) {
      made.push(
        await createEntity(req, {
          name: `Entity ${i}`,
          type,
          observations: Array.from({ length: i % 3 }, (_, k) => `fact ${k}`),
        }),
      );
    }
    await createRelation(req, made[0]!, made[1]!, 'knows');
    await createRelation(req, made[1]!, made[2]!, 'knows');
    await createRelation(req, made[3]!, made[0]!, 'employs');
    const key = await req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } });
    expect(key.statusCode).toBe(201);
    // An observation over MCP, and a failed call that counts for nothing.
    const client = await connectMcp(baseUrl, token);
    await callTool(client, 'add_observations', {
      observations: [{ entityName: 'Entity 6', contents: ['late fact'] }],
    });
    expect(
      await callToolError(client, 'update_entity', { name: 'nobody', entityType: 'x' }),
    ).toMatch(/not found/i);
    await client.close();
    // Two entities from earlier days (a lossless import keeps their dates): one a
    // few days back shows in the recent activity, one from last month does not.
    const old = (name: string, at: Date) => ({
      id: randomUUID(),
      name,
      type: 'event',
      metadata: {},
      createdAt: at.toISOString(),
      updatedAt: at.toISOString(),
      observations: [],
    });
    await t.runtime.transfer.importLossless(authFor(accountId, userId), {
      format: 'engram',
      version: 1,
      entities: [old('Three days back', daysAgo(3)), old('Long ago', daysAgo(40))],
      relations: [],
    });

    const summary = await summaryOf(req);
    const expectedTotals = await countedRows(accountId);
    expect(expectedTotals).toEqual({
      totalEntities: 9,
      totalRelations: 3,
      totalObservations: 7,
    });
    expect(summary).toMatchObject(expectedTotals);
    // The newest five, newest first (the imported ones were added last).
    expect(summary.recentEntities.map((entity) => entity.name)).toEqual([
      'Long ago',
      'Three days back',
      'Entity 6',
      'Entity 5',
      'Entity 4',
    ]);
    expect(summary.recentEntities[2]).toEqual({
      id: made[6]!.id,
      name: 'Entity 6',
      type: 'event',
      created_at: made[6]!.createdAt,
    });
    expect(summary.entityTypeStats).toEqual([
      { type: 'event', label: 'Event', count: 3 },
      { type: 'person', label: 'Person', count: 3 },
      { type: 'company', label: 'Company', count: 2 },
      { type: 'concept', label: 'Concept', count: 1 },
    ]);
    expect(summary.activityStats).toEqual([
      { date: today(), count: 7 },
      { date: daysAgo(3).toISOString().slice(0, 10), count: 1 },
    ]);
    expect(summary.apiKeyCount).toBe(1);
    expect(summary.webhookCount).toBe(0);
    // 7 entities, 3 relations, 1 key over REST; 1 observation over MCP (the import is no request).
    const usage = { queries: 0, creates: 12, updates: 0, deletes: 0, total: 12 };
    expect(summary.todayApiCalls).toBe(12);
    expect(summary.monthlyUsage).toEqual(usage);
    expect(summary.operationsThisMonth).toBe(12);
    expect(summary.dailyOperations).toEqual([{ date: today(), ...usage }]);
    expect(summary.billingData.totalRequests).toBe(12);
    expect(summary.billingData.breakdown).toEqual({ query: 0, create: 12, update: 0, delete: 0 });
    expect(
      summary.billingData.details.map(({ operation_type, resource_type, request_count }) => [
        operation_type,
        resource_type,
        request_count,
      ]),
    ).toEqual([
      ['create', 'entity', 7],
      ['create', 'relation', 3],
      ['create', 'api_key', 1],
      ['create', 'observation', 1],
    ]);
    for (const detail of summary.billingData.details) {
      expect(detail.avg_response_time).toBeGreaterThan(0);
    }
    // The two smaller calls answer the same numbers.
    const realTime = await req({ method: 'GET', url: '/api/analytics/stats/real-time' });
    expect(realTime.json()).toEqual(usage);
    const monthly = await req({ method: 'GET', url: '/api/analytics/billing/monthly-summary' });
    expect(monthly.json()).toEqual(summary.billingData);

    // Deleting an entity takes its observations and relations out of the totals.
    expect((await req({ method: 'DELETE', url: `/api/entities/${made[0]!.id}` })).statusCode).toBe(
      200,
    );
    const after = await summaryOf(req);
    expect(await countedRows(accountId)).toEqual({
      totalEntities: 8,
      totalRelations: 1,
      totalObservations: 7,
    });
    expect(after).toMatchObject({ totalEntities: 8, totalRelations: 1, totalObservations: 7 });
    // Activity counts creations: a deletion does not undo that one was created today.
    expect(after.activityStats[0]).toEqual({ date: today(), count: 7 });
  });

  it('reads the plan’s limits from the shared catalog', async () => {
    const { req, userId } = await newAccount(t.app);
    await setPlan(t, userId, 'pro-annual');
    expect((await summaryOf(req)).plan).toEqual({
      id: 'pro-annual',
      name: 'Pro',
      limits: { entities: 100_000, operationsPerMonth: 1_000_000, apiKeys: 10, webhooks: 20 },
    });
    expect((await summaryOf(req)).userPlan).toBe('pro');
    await setPlan(t, userId, 'team');
    expect(await summaryOf(req)).toMatchObject({
      userPlan: 'team',
      plan: { limits: { entities: 1_000_000, operationsPerMonth: 10_000_000, webhooks: -1 } },
    });
  });

  it('shows an account only its own numbers', async () => {
    const a = await newAccount(t.app);
    const b = await newAccount(t.app);
    await createEntity(a.req, { name: 'Secret', observations: ['hidden'] });
    const seen = await summaryOf(b.req);
    expect(seen).toMatchObject({
      totalEntities: 0,
      totalObservations: 0,
      recentEntities: [],
      todayApiCalls: 0,
      activityStats: [],
    });
  });

  it('keeps the counters equal to the rows through every kind of write', async () => {
    const { req, userId, token } = await newAccount(t.app);
    const accountId = await accountIdOf(t, userId);
    const client = await connectMcp(baseUrl, token);
    await callTool(client, 'create_entities', {
      entities: Array.from({ length: 50 }, (_, i) => ({
        name: `n${i}`,
        entityType: i % 2 ? 'odd' : 'even',
        observations: [`a${i}`, `b${i}`],
      })),
    });
    await callTool(client, 'create_relations', {
      relations: Array.from({ length: 49 }, (_, i) => ({
        from: `n${i}`,
        to: `n${i + 1}`,
        relationType: 'next',
      })),
    });
    await callTool(client, 'delete_observations', {
      deletions: [{ entityName: 'n3', observations: ['a3'] }],
    });
    await callTool(client, 'delete_entities', { entityNames: ['n10', 'n20', 'n30'] });
    await callTool(client, 'delete_relations', {
      relations: [{ from: 'n0', to: 'n1', relationType: 'next' }],
    });
    await client.close();
    const one = (await req({ method: 'GET', url: '/api/entities?query=n5&limit=1' })).json()
      .entities[0] as Entity;
    await req({
      method: 'PUT',
      url: `/api/entities/${one.id}`,
      payload: { name: 'n5', type: 'odd', observations: ['only one now', 'and two'] },
    });
    const summary = await summaryOf(req);
    const rows = await countedRows(accountId);
    expect(summary).toMatchObject(rows);
    expect(rows).toEqual({ totalEntities: 47, totalRelations: 42, totalObservations: 93 });
  });
});

describe('GET /api/export', () => {
  it('downloads the account’s graph losslessly: what was created, and nothing of others', async () => {
    const { req, userId } = await newAccount(t.app);
    const other = await newAccount(t.app);
    await createEntity(other.req, { name: 'Not mine' });
    const ada = await createEntity(req, {
      name: 'Ada',
      type: 'person',
      metadata: { born: 1815 },
      observations: ['wrote the first program', { content: 'met Babbage', metadata: { y: 1833 } }],
    });
    const engine = await createEntity(req, { name: 'Analytical Engine', type: 'technology' });
    const relation = await createRelation(req, ada, engine, 'programmed');

    const response = await req({ method: 'GET', url: '/api/export' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="engram-export-${today()}.json"`,
    );
    const document = response.json();
    expect(document).toMatchObject({ format: 'engram', version: 1 });
    expect(document.entities).toHaveLength(2);
    const exportedAda = document.entities.find((entity: { id: string }) => entity.id === ada.id);
    expect(exportedAda).toMatchObject({
      name: 'Ada',
      type: 'person',
      metadata: { born: 1815 },
      createdAt: ada.createdAt,
      observations: [
        { content: 'wrote the first program' },
        { content: 'met Babbage', metadata: { y: 1833 } },
      ],
    });
    expect(document.relations).toEqual([
      {
        id: relation.id,
        fromEntityId: ada.id,
        toEntityId: engine.id,
        type: 'programmed',
        createdAt: relation.createdAt,
      },
    ]);

    // It reads back into another account as the same graph.
    const copy = await newAccount(t.app);
    const copyAccount = await accountIdOf(t, copy.userId);
    await t.runtime.transfer.importLossless(authFor(copyAccount, copy.userId), document);
    expect(await summaryOf(copy.req)).toMatchObject({
      totalEntities: 2,
      totalRelations: 1,
      totalObservations: 2,
    });
    expect(userId).not.toBe(copy.userId);
  });
});

describe('the entity limit at its boundary', () => {
  const LIMIT =
    'Entity limit reached: the Free plan allows 1,000 entities. Upgrade your plan to add more.';

  it('allows exactly the limit and refuses one more, naming the limit and the plan', async () => {
    const { req, token } = await newAccount(t.app);
    const client = await connectMcp(baseUrl, token);
    await callTool(client, 'create_entities', {
      entities: Array.from({ length: 999 }, (_, i) => ({
        name: `e${i}`,
        entityType: 'thing',
        observations: [],
      })),
    });
    // Entity 1,000 of 1,000: allowed.
    const last = await req({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'the thousandth', type: 'thing' },
    });
    expect(last.statusCode).toBe(201);
    // Entity 1,001: refused, over REST and MCP alike, and nothing is written.
    const over = await req({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'one too many', type: 'thing' },
    });
    expect(over.statusCode).toBe(402);
    expect(over.json()).toEqual({ error: LIMIT, code: 'PLAN_LIMIT_REACHED' });
    expect(
      await callToolError(client, 'create_entities', {
        entities: [{ name: 'one too many', entityType: 'thing', observations: [] }],
      }),
    ).toBe(LIMIT);
    await client.close();
    expect((await summaryOf(req)).totalEntities).toBe(1_000);
  });

  it('never overshoots with concurrent creates, and refuses a batch that would cross it whole', async () => {
    const { req, token } = await newAccount(t.app);
    const client = await connectMcp(baseUrl, token);
    await callTool(client, 'create_entities', {
      entities: Array.from({ length: 990 }, (_, i) => ({
        name: `e${i}`,
        entityType: 'thing',
        observations: [],
      })),
    });
    expect(
      await callToolError(client, 'create_entities', {
        entities: Array.from({ length: 11 }, (_, i) => ({
          name: `batch${i}`,
          entityType: 'thing',
          observations: [],
        })),
      }),
    ).toBe(LIMIT);
    await client.close();
    expect((await summaryOf(req)).totalEntities).toBe(990);

    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        req({ method: 'POST', url: '/api/entities', payload: { name: `racer${i}`, type: 't' } }),
      ),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(10);
    expect(responses.filter((response) => response.statusCode === 402)).toHaveLength(20);
    expect((await summaryOf(req)).totalEntities).toBe(1_000);
  });
});

describe('migration 008 on a database that already has data', () => {
  it('fills the counters from the rows that exist', async () => {
    const database = await createEmptyTestDatabase();
    try {
      const before = migrations.findIndex((migration) => migration.name.startsWith('008'));
      await database.withSession(async (session) => {
        await session.exec(`create table schema_migrations (
          name text primary key, applied_at timestamptz not null default now())`);
        for (const migration of migrations.slice(0, before)) {
          await session.exec(migration.sql);
          await session.query('insert into schema_migrations (name) values ($1)', [migration.name]);
        }
        const [account] = await session.query<{ id: string }>(
          `insert into accounts (name) values ('old') returning id`,
        );
        const id = account!.id;
        await session.query(
          `insert into entities (account_id, id, name, type, created_at) values
             ($1, '00000000-0000-4000-8000-000000000001', 'a', 't', now()),
             ($1, '00000000-0000-4000-8000-000000000002', 'b', 't', now() - interval '2 days')`,
          [id],
        );
        await session.query(
          `insert into observations (account_id, entity_id, content, position) values
             ($1, '00000000-0000-4000-8000-000000000001', 'x', 0),
             ($1, '00000000-0000-4000-8000-000000000001', 'y', 1)`,
          [id],
        );
        await session.query(
          `insert into relations (account_id, from_id, to_id, type) values
             ($1, '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', 'r')`,
          [id],
        );
        await session.query(
          `insert into usage_daily values ($1, current_date, 'query', 'entity', 40, 1),
                                          ($1, current_date, 'create', 'entity', 2, 1)`,
          [id],
        );
      });
      expect(await migrate(database)).toContain('008-account-counters');
      const rows = await database.withSession((session) =>
        session.query<Record<string, string | number>>(`
          select a.entity_count::int as entities, a.relation_count::int as relations,
                 a.observation_count::int as observations,
                 (select sum(entities_created)::int from graph_daily g where g.account_id = a.id) as created,
                 (select count(*)::int from graph_daily g where g.account_id = a.id) as days,
                 (select (count + reserved)::int from usage_monthly m where m.account_id = a.id) as operations
            from accounts a`),
      );
      expect(rows).toEqual([
        { entities: 2, relations: 1, observations: 2, created: 2, days: 2, operations: 42 },
      ]);
    } finally {
      await database.close();
    }
  });
});

describe('sign-up leaves nothing to count', () => {
  it('a new account starts at zero', async () => {
    const { token } = await signUp(t.app);
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/analytics',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.json()).toMatchObject({ totalEntities: 0, todayApiCalls: 0 });
  });
});
