import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { createRuntime } from '../../runtime.js';
import {
  accountIdOf as accountOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  testConfig,
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

async function accountIdOf(userId: string): Promise<string> {
  return accountOf(t, userId);
}

async function usageRows(accountId: string) {
  // Metering is written in batches; flush what is counted so far.
  await t.runtime.usage.flush();
  return t.database.db
    .selectFrom('usage_daily')
    .select(['operation_type', 'resource_type', 'count'])
    .where('account_id', '=', accountId)
    .orderBy('operation_type')
    .orderBy('resource_type')
    .execute();
}

/** Writes the account's plan as another node or an operator would: this node's copy does not know. */
async function setPlanPastBilling(accountId: string, planId: string): Promise<void> {
  await t.database.db
    .updateTable('subscriptions')
    .set({ plan_id: planId })
    .where('account_id', '=', accountId)
    .execute();
}

/**
 * Runs `fn` with the meter's timed flush stopped, so a flush lands only where
 * the test asks for one (on a loaded machine one would land between its calls
 * and its checks).
 */
async function withoutTimedFlush(fn: () => Promise<void>): Promise<void> {
  await t.runtime.usage.stop();
  try {
    await fn();
  } finally {
    t.runtime.usage.start(5_000);
  }
}

/** Puts `count` operations on the account's books for `day` (as if made earlier that day). */
async function spend(
  accountId: string,
  count: number,
  day = new Date().toISOString().slice(0, 10),
) {
  await t.database.db
    .insertInto('usage_daily')
    .values({
      account_id: accountId,
      day,
      operation_type: 'query',
      resource_type: 'entity',
      count,
      total_ms: 1,
    })
    .execute();
}

/** The month's row of the limit counter: written and admitted operations. */
async function monthly(accountId: string) {
  const row = await t.database.db
    .selectFrom('usage_monthly')
    .select(['count', 'reserved'])
    .where('account_id', '=', accountId)
    .where('month', '=', `${new Date().toISOString().slice(0, 7)}-01`)
    .executeTakeFirst();
  return { count: Number(row?.count ?? 0), reserved: Number(row?.reserved ?? 0) };
}

const LIMIT_MESSAGE =
  'Monthly operation limit reached: the Free plan includes 15,000 operations per month. Upgrade your plan, or wait until the month ends.';

/** Seconds from now to the start of next month (UTC). */
function secondsToNextMonth(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.ceil((next - now.getTime()) / 1000);
}

describe('usage metering', () => {
  it('counts REST and MCP operations alike, per operation and resource', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'm1', type: 't' } });
    await call({ method: 'GET', url: '/api/entities' });
    await call({ method: 'GET', url: '/api/entities/not-found' }); // failures are not counted
    const client = await connectMcp(baseUrl, user.apiKey);
    await callTool(client, 'create_entities', {
      entities: [{ name: 'm2', entityType: 't', observations: [] }],
    });
    await callTool(client, 'search_nodes', { query: 'm' });
    await client.close();

    expect(await usageRows(await accountIdOf(user.id))).toEqual([
      { operation_type: 'create', resource_type: 'entity', count: 2 },
      { operation_type: 'query', resource_type: 'entity', count: 2 },
    ]);
  });

  it('counts every kind of operation once, through REST and through MCP', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const accountId = await accountIdOf(user.id);
    const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
      const response = await call({ method, url, ...(payload ? { payload } : {}) });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
      return response.json();
    };
    const a = await ok('POST', '/api/entities', { name: 'a', type: 'person' });
    const b = await ok('POST', '/api/entities', { name: 'b', type: 'person' });
    await ok('GET', '/api/entities');
    await ok('GET', '/api/entities/types');
    await ok('GET', `/api/entities/${a.id}`);
    await ok('PUT', `/api/entities/${a.id}`, { name: 'a2', type: 'person' });
    await ok('POST', `/api/entities/${a.id}/observations`, { observations: ['seen'] });
    const relation = await ok('POST', '/api/relations', {
      fromEntityId: a.id,
      toEntityId: b.id,
      type: 'knows',
    });
    await ok('GET', '/api/relations');
    await ok('GET', '/api/relations/types');
    await ok('PUT', `/api/relations/${relation.id}`, { type: 'likes' });
    await ok('GET', '/api/relations/graph/data');
    await ok('GET', `/api/relations/graph/${a.id}`);
    await ok('DELETE', `/api/relations/${relation.id}`);
    await ok('DELETE', `/api/entities/${b.id}`);
    await ok('GET', '/api/export');
    // Reading one's own usage does not use it up.
    await ok('GET', '/api/analytics');
    await ok('GET', '/api/analytics/stats/real-time');
    await ok('GET', '/api/analytics/billing/monthly-summary');
    const rest = [
      { operation_type: 'create', resource_type: 'entity', count: 2 },
      { operation_type: 'create', resource_type: 'observation', count: 1 },
      { operation_type: 'create', resource_type: 'relation', count: 1 },
      { operation_type: 'delete', resource_type: 'entity', count: 1 },
      { operation_type: 'delete', resource_type: 'relation', count: 1 },
      { operation_type: 'query', resource_type: 'entity', count: 3 },
      { operation_type: 'query', resource_type: 'graph', count: 3 },
      { operation_type: 'query', resource_type: 'relation', count: 2 },
      { operation_type: 'update', resource_type: 'entity', count: 1 },
      { operation_type: 'update', resource_type: 'relation', count: 1 },
    ];
    expect(await usageRows(accountId)).toEqual(rest);

    const client = await connectMcp(baseUrl, user.apiKey);
    await callTool(client, 'create_entities', {
      entities: [
        { name: 'x', entityType: 't', observations: ['one'] },
        { name: 'y', entityType: 't', observations: [] },
      ],
    });
    await callTool(client, 'create_relations', {
      relations: [{ from: 'x', to: 'y', relationType: 'uses' }],
    });
    await callTool(client, 'add_observations', {
      observations: [{ entityName: 'y', contents: ['two'] }],
    });
    await callTool(client, 'update_entity', { name: 'y', entityType: 'u' });
    await callTool(client, 'read_graph');
    await callTool(client, 'search_nodes', { query: 'x' });
    await callTool(client, 'open_nodes', { names: ['x'] });
    await callTool(client, 'get_neighbors', { name: 'x' });
    await callTool(client, 'list_types');
    await callTool(client, 'delete_observations', {
      deletions: [{ entityName: 'y', observations: ['two'] }],
    });
    await callTool(client, 'delete_relations', {
      relations: [{ from: 'x', to: 'y', relationType: 'uses' }],
    });
    await callTool(client, 'delete_entities', { entityNames: ['y'] });
    // A tool that fails is not counted.
    await callToolError(client, 'update_entity', { name: 'nobody', entityType: 'u' });
    await client.close();

    const plus = (type: string, resource: string, count: number) => ({
      operation_type: type,
      resource_type: resource,
      count,
    });
    expect(await usageRows(accountId)).toEqual([
      plus('create', 'entity', 3),
      plus('create', 'observation', 2),
      plus('create', 'relation', 2),
      plus('delete', 'entity', 2),
      plus('delete', 'observation', 1),
      plus('delete', 'relation', 2),
      plus('query', 'entity', 6),
      plus('query', 'graph', 5),
      plus('query', 'relation', 2),
      plus('update', 'entity', 2),
      plus('update', 'relation', 1),
    ]);
    // Every admitted operation was either counted or, after an interval
    // without requests, given back.
    await t.runtime.usage.flush();
    expect(await monthly(accountId)).toEqual({ count: 28, reserved: 0 });

    const summary = (await call({ method: 'GET', url: '/api/analytics' })).json();
    expect(summary.monthlyUsage).toEqual({
      queries: 13,
      creates: 7,
      updates: 3,
      deletes: 5,
      total: 28,
    });
    expect(summary.todayApiCalls).toBe(28);
    expect(summary.operationsThisMonth).toBe(28);
  });

  it('refuses operations past the plan’s monthly allowance, over REST and MCP', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await spend(accountId, 15_000);
    const refused = await as(t.app, token)({ method: 'GET', url: '/api/entities' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', error: LIMIT_MESSAGE });
    // Until the month resets (give a second of slack for the clock moving on).
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Math.abs(retryAfter - secondsToNextMonth())).toBeLessThanOrEqual(2);

    const client = await connectMcp(baseUrl, user.apiKey);
    expect(await callToolError(client, 'read_graph')).toBe(LIMIT_MESSAGE);
    expect(await callToolError(client, 'create_entities', { entities: [] })).toBe(LIMIT_MESSAGE);
    await client.close();
    // Account screens stay usable: the profile and the dashboard's reads are not metered.
    expect((await as(t.app, token)({ method: 'GET', url: '/auth/me' })).statusCode).toBe(200);
    const summary = await as(t.app, token)({ method: 'GET', url: '/api/analytics' });
    expect(summary.statusCode).toBe(200);
    expect(summary.json().operationsThisMonth).toBe(15_000);
    expect(await monthly(accountId)).toEqual({ count: 15_000, reserved: 0 });
  });

  it('admits by the account’s current plan: a paid plan at once, an unknown plan id as free', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await spend(accountId, 15_000);
    const call = as(t.app, token);
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(429);
    await setPlan(t, user.id, 'starter-annual');
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    await setPlan(t, user.id, 'no-such-plan');
    const refused = await call({ method: 'GET', url: '/api/entities' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe(LIMIT_MESSAGE);
    await setPlan(t, user.id, 'team');
    await spend(accountId, 9_985_000, '2000-01-01'); // another month: does not count
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
  });

  it('admits by a plan changed through billing at once, though admission keeps the plan it read', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await spend(accountId, 15_000);
    const call = as(t.app, token);
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(429);
    const upgraded = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'starter', priceId: 'price_starter_monthly' },
    });
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    // Past this node's billing (another node, or by hand): seen once the plan read is old.
    await setPlanPastBilling(accountId, 'free');
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(429);
  }, 15_000);

  it('reads a plan changed elsewhere again in the background once its copy is half its age', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await spend(accountId, 15_000);
    const call = as(t.app, token);
    await setPlan(t, user.id, 'starter');
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200); // read now
    // Past this node's billing (another node, or by hand): the copy does not know.
    await setPlanPastBilling(accountId, 'free');
    await new Promise((resolve) => setTimeout(resolve, 2_700));
    // Past half its age the copy still answers, and its next read starts behind it…
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // …so the change shows well before the copy's full age (5 s) without a request waiting on it.
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(429);
  }, 15_000);

  it('leases admissions to a busy account, shows only those used, and gives the rest back once it is idle', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    const call = as(t.app, token);
    await withoutTimedFlush(async () => {
      for (let i = 0; i < 20; i++) {
        expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
      }
      // Reserved ahead: more than the 20 used, so later requests need no statement.
      const before = await monthly(accountId);
      expect(before.count).toBe(0);
      expect(before.reserved).toBeGreaterThan(20);
      const summary = (await call({ method: 'GET', url: '/api/analytics' })).json();
      expect(summary.operationsThisMonth).toBe(20);
      // Still drawing on its lease in this interval: the account keeps it.
      await t.runtime.usage.flush();
      const after = await monthly(accountId);
      expect(after.count).toBe(20);
      expect(after.reserved).toBeGreaterThan(0);
      // A whole interval without a request: what is left goes back.
      await t.runtime.usage.flush();
      expect(await monthly(accountId)).toEqual({ count: 20, reserved: 0 });
    });
  });

  it("reserves a busy account's next lease before this one runs out", async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    const call = as(t.app, token);
    await withoutTimedFlush(async () => {
      let least = Number.POSITIVE_INFINITY;
      for (let used = 1; used <= 200; used++) {
        expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
        // Reserved and not yet handed out: this node's lease. Past the first
        // few leases it never runs out, so no request waits on a reservation.
        if (used > 100) least = Math.min(least, (await monthly(accountId)).reserved - used);
      }
      expect(least).toBeGreaterThan(0);
      await t.runtime.usage.stop();
      expect(await monthly(accountId)).toEqual({ count: 200, reserved: 0 });
    });
  });

  it('admits exactly the allowance left to 200 parallel requests (14,950 used → 50 succeed)', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await spend(accountId, 14_950);
    const call = as(t.app, token);
    await withoutTimedFlush(async () => {
      const responses = await Promise.all(
        Array.from({ length: 200 }, () => call({ method: 'GET', url: '/api/entities' })),
      );
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 200)).toHaveLength(50);
      expect(statuses.filter((status) => status === 429)).toHaveLength(150);
      expect(await monthly(accountId)).toEqual({ count: 14_950, reserved: 50 });
      await t.runtime.usage.flush();
      expect(await monthly(accountId)).toEqual({ count: 15_000, reserved: 0 });
      const rows = await usageRows(accountId);
      expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(15_000);
    });
  });

  it('holds the allowance exactly across two nodes sharing the database', async () => {
    const config = testConfig();
    const second = await createRuntime(config, { database: t.database });
    const otherNode: FastifyInstance = await buildApp({ config, runtime: second });
    try {
      const { token, user } = await signUp(t.app);
      const accountId = await accountIdOf(user.id);
      await spend(accountId, 14_970);
      const onFirst = as(t.app, token);
      const onSecond = as(otherNode, token);
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 === 0 ? onFirst : onSecond)({ method: 'GET', url: '/api/entities' }),
        ),
      );
      expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(30);
      expect(responses.filter((response) => response.statusCode === 429)).toHaveLength(70);
      await t.runtime.usage.flush();
      await second.usage.flush();
      expect(await monthly(accountId)).toEqual({ count: 15_000, reserved: 0 });
    } finally {
      await otherNode.close();
      await second.close();
    }
  });

  it('gives a failed request’s admission back, so it does not count against the plan', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await spend(accountId, 14_999);
    const call = as(t.app, token);
    // Failures (404, 400, 409) leave the last operation of the month unused…
    for (let i = 0; i < 3; i++) {
      expect((await call({ method: 'GET', url: '/api/entities/missing' })).statusCode).toBe(404);
    }
    const client = await connectMcp(baseUrl, user.apiKey);
    expect(await callToolError(client, 'update_entity', { name: 'nobody' })).toMatch(/not found/);
    await client.close();
    // …given back before each failure was answered…
    expect(await monthly(accountId)).toEqual({ count: 14_999, reserved: 0 });
    // …so one more succeeds, and then the month is used up.
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(429);
  });

  it('keeps the counts of a failed flush and writes them with the next one', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const accountId = await accountIdOf(user.id);
    await call({ method: 'GET', url: '/api/entities' });
    // The table is out of reach for a moment: the flush fails.
    await t.database.withSession((session) =>
      session.exec('alter table usage_daily rename to usage_daily_away'),
    );
    try {
      await t.runtime.usage.flush();
    } finally {
      await t.database.withSession((session) =>
        session.exec('alter table usage_daily_away rename to usage_daily'),
      );
    }
    // Meanwhile the operation still counts against the plan.
    expect(await monthly(accountId)).toEqual({ count: 0, reserved: 1 });
    await call({ method: 'GET', url: '/api/entities' });
    expect(await usageRows(accountId)).toEqual([
      { operation_type: 'query', resource_type: 'entity', count: 2 },
    ]);
    expect(await monthly(accountId)).toEqual({ count: 2, reserved: 0 });
  });

  it('shows each operation on the dashboard as soon as it is answered, without waiting for a flush', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    await t.runtime.usage.flush();
    const dashboard = async () => {
      const summary = (await call({ method: 'GET', url: '/api/analytics' })).json();
      return [summary.todayApiCalls, summary.monthlyUsage.total, summary.operationsThisMonth];
    };
    expect(await dashboard()).toEqual([0, 0, 0]);
    const created = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'fresh', type: 't' },
    });
    // Counted in memory and flushed every 5 s; the answer merges what is not flushed yet.
    expect(await dashboard()).toEqual([1, 1, 1]);
    await call({ method: 'GET', url: '/api/entities' });
    await call({ method: 'GET', url: `/api/entities/${created.json().id}` });
    expect(await dashboard()).toEqual([3, 3, 3]);
    // Over a real connection too: the count is taken before the answer is sent.
    const headers = { authorization: `Bearer ${token}` };
    expect((await fetch(`${baseUrl}/api/entities`, { headers })).status).toBe(200);
    const summary = (await (await fetch(`${baseUrl}/api/analytics`, { headers })).json()) as {
      todayApiCalls: number;
      monthlyUsage: { queries: number };
    };
    expect([summary.todayApiCalls, summary.monthlyUsage.queries]).toEqual([4, 3]);
  });

  it('counts every operation once in a report read while a flush writes them', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    const call = as(t.app, token);
    await t.runtime.usage.flush();
    for (let i = 0; i < 3; i++) await call({ method: 'GET', url: '/api/entities' });
    // The report's reads start first; the flush takes the unflushed counts meanwhile.
    const during = t.runtime.usage.report(accountId);
    const flushed = t.runtime.usage.flush();
    const [report] = await Promise.all([during, flushed]);
    expect(report.today.queries).toBe(3);
    expect((await t.runtime.usage.report(accountId)).today.queries).toBe(3);
  });

  it('keeps the counts across a flush and a restart', async () => {
    const config = testConfig();
    const first = await createRuntime(config, { database: t.database });
    const firstApp = await buildApp({ config, runtime: first });
    const { token, user } = await signUp(firstApp);
    const accountId = await accountIdOf(user.id);
    const call = as(firstApp, token);
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'kept', type: 't' } });
    await first.usage.flush();
    await call({ method: 'GET', url: '/api/entities' });
    await call({ method: 'GET', url: '/api/entities' });
    // A graceful stop flushes what was counted since.
    await firstApp.close();
    await first.close();

    const again = await createRuntime(config, { database: t.database });
    const againApp = await buildApp({ config, runtime: again });
    try {
      const summary = (await as(againApp, token)({ method: 'GET', url: '/api/analytics' })).json();
      expect(summary.monthlyUsage).toEqual({
        queries: 2,
        creates: 1,
        updates: 0,
        deletes: 0,
        total: 3,
      });
      expect(summary.operationsThisMonth).toBe(3);
      expect(await monthly(accountId)).toEqual({ count: 3, reserved: 0 });
    } finally {
      await againApp.close();
      await again.close();
    }
  });
});

describe('the monthly allowance resets with the month', () => {
  let clocked: TestApp;
  const clock = manualClock(new Date('2027-03-31T23:59:00.000Z'));
  beforeAll(async () => {
    clocked = await createTestApp({}, { now: clock.now });
  });
  afterAll(() => clocked.close());

  it('answers 429 with Retry-After until the first of next month, then admits again', async () => {
    const { token, user } = await signUp(clocked.app);
    const accountId = await accountOf(clocked, user.id);
    await clocked.database.db
      .insertInto('usage_daily')
      .values({
        account_id: accountId,
        day: '2027-03-31',
        operation_type: 'create',
        resource_type: 'entity',
        count: 15_000,
        total_ms: 1,
      })
      .execute();
    const call = as(clocked.app, token);
    const refused = await call({ method: 'GET', url: '/api/entities' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect((await call({ method: 'GET', url: '/api/analytics' })).json()).toMatchObject({
      operationsThisMonth: 15_000,
      usageResetsAt: '2027-04-01T00:00:00.000Z',
    });

    clock.advanceDays(2 / 1440); // 00:01 on April 1st
    expect((await call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    await clocked.runtime.usage.flush();
    const summary = (await call({ method: 'GET', url: '/api/analytics' })).json();
    expect(summary.operationsThisMonth).toBe(1);
    expect(summary.monthlyUsage.total).toBe(1);
    expect(summary.todayApiCalls).toBe(1);
    expect(summary.dailyOperations).toEqual([
      { date: '2027-04-01', queries: 1, creates: 0, updates: 0, deletes: 0, total: 1 },
    ]);
  });
});
