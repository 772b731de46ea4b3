import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../../test/harness.js';
import { callTool, callToolError, connectMcp } from '../../test/mcp-client.js';

let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

async function accountIdOf(userId: string): Promise<string> {
  const row = await t.database.db
    .selectFrom('account_members')
    .select('account_id')
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.account_id;
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

  it('refuses operations past the plan’s monthly allowance, over REST and MCP', async () => {
    const { token, user } = await signUp(t.app);
    const accountId = await accountIdOf(user.id);
    await t.database.db
      .insertInto('usage_daily')
      .values({
        account_id: accountId,
        day: new Date().toISOString().slice(0, 10),
        operation_type: 'query',
        resource_type: 'entity',
        count: 15_000,
        total_ms: 1,
      })
      .execute();
    const refused = await as(t.app, token)({ method: 'GET', url: '/api/entities' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.json().error).toContain('Free plan includes 15,000 operations per month');

    const client = await connectMcp(baseUrl, user.apiKey);
    expect(await callToolError(client, 'read_graph')).toContain('Monthly operation limit reached');
    await client.close();
    // Account screens stay usable: signing in and reading the profile are not metered.
    expect((await as(t.app, token)({ method: 'GET', url: '/auth/me' })).statusCode).toBe(200);
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
    await call({ method: 'GET', url: '/api/entities' });
    expect(await usageRows(accountId)).toEqual([
      { operation_type: 'query', resource_type: 'entity', count: 2 },
    ]);
  });
});
