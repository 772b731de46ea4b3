import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import type { DatabaseHandle } from '../db/connection.js';
import { StripeFake } from '../test/fakes/stripe.js';
import { createGraphService } from '../features/graph/graph.service.js';
import { hashSecret } from '../lib/secrets.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';
import { as, createTestDatabase, signUp, testConfig } from '../test/harness.js';
import { callTool, connectMcp, openSession } from '../test/mcp-client.js';
import { TestSocket } from '../test/ws-client.js';

// Finding 7 of issue 31: an account could not be deleted. DELETE /auth/me
// (session and password) ends every credential and what it opened at once,
// frees the email, and removes every row of the person's accounts — counted
// here in every table of the database, found in the catalog, so a table added
// later is covered without a change — in batches, even across a crash.

const BATCH = 500;
const PASSWORD = 'Password123';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase(60_000);
});
afterAll(() => database.close());

interface Node {
  app: Awaited<ReturnType<typeof buildApp>>;
  runtime: Runtime;
  base: string;
  close(): Promise<void>;
}
const nodes: Node[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  for (const node of nodes.splice(0)) await node.close();
});

/** A server over the shared database (a restart is a second one on the same data). */
async function startNode(
  overrides: Parameters<typeof testConfig>[0] = {},
  purge: RuntimeOptions['accountPurge'] = {},
): Promise<Node> {
  const config = testConfig(overrides);
  const runtime = await createRuntime(config, {
    database,
    accountPurge: { batchRows: BATCH, ...purge },
  });
  const app = await buildApp({ config, runtime });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  let closed = false;
  const node: Node = {
    app,
    runtime,
    base,
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await runtime.close();
    },
  };
  nodes.push(node);
  return node;
}

const db = () => database.db;

/** Every table of the database (the catalog's list, so new tables count too). */
async function allTables(): Promise<string[]> {
  const result = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1
  `.execute(db());
  return result.rows.map((row) => row.name);
}

/** Rows of each table whose any column mentions one of `needles` (ids, email, its hash). */
async function rowsMentioning(needles: string[]): Promise<Record<string, number>> {
  const patterns = needles.map((needle) => `%${needle}%`);
  const counts: Record<string, number> = {};
  for (const table of await allTables()) {
    const result = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(table)} as r
       where r::text like any(array[${sql.join(patterns)}]::text[])
    `.execute(db());
    counts[table] = result.rows[0]!.n;
  }
  return counts;
}

const nonZero = (counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

async function accountOf(userId: string): Promise<string> {
  const row = await db()
    .selectFrom('account_members')
    .select('account_id')
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.account_id;
}

/** A person whose account holds something in every table: graph, keys, usage, billing, throttles. */
async function personWithEverything(node: Node, entities: number) {
  const { token, user } = await signUp(node.app);
  const accountId = await accountOf(user.id);
  await db()
    .updateTable('subscriptions')
    .set({ plan_id: 'pro' })
    .where('account_id', '=', accountId)
    .execute();
  node.runtime.billing.planChanged?.(accountId);
  const call = as(node.app, token);
  const key = (await call({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })).json<{
    id: string;
    apiKey: string;
  }>();

  // The graph, larger than one purge batch in every graph table, through MCP.
  const mcp = await connectMcp(node.base, key.apiKey);
  const names = Array.from({ length: entities }, (_, i) => `thing-${i}`);
  for (let start = 0; start < names.length; start += 1_000) {
    await callTool(mcp, 'create_entities', {
      entities: names.slice(start, start + 1_000).map((name, i) => ({
        name,
        entityType: `type-${i % 7}`,
        observations: [`${name} one`, `${name} two`],
      })),
    });
  }
  await callTool(mcp, 'create_relations', {
    relations: names.slice(1).map((name, i) => ({
      from: names[i]!,
      to: name,
      relationType: 'follows',
    })),
  });
  await mcp.close();

  // A second session (a successful sign-in clears failed ones, so it comes first).
  const otherSession = (
    await node.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: user.email, password: PASSWORD },
    })
  ).json<{ token: string }>().token;
  // Usage (REST and key counters), a failed sign-in, billing mirrors.
  await call({ method: 'GET', url: '/api/entities' });
  await node.app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { email: user.email, password: 'not-the-password' },
  });
  await db()
    .insertInto('payment_methods')
    .values({
      account_id: accountId,
      id: `pm_${accountId}`,
      brand: 'visa',
      last4: '4242',
      exp_month: 1,
      exp_year: 2030,
    })
    .execute();
  await db()
    .insertInto('invoices')
    .values({
      account_id: accountId,
      id: `in_${accountId}`,
      created: new Date(),
      amount: 1900,
      status: 'paid',
    })
    .execute();
  await db()
    .insertInto('billing_events')
    .values({ id: `evt_${accountId}`, type: 'invoice.paid', account_id: accountId })
    .execute();
  await node.runtime.usage.flush();
  await node.runtime.keys.usage.flush();
  return {
    token,
    otherSession,
    user,
    key,
    accountId,
    call,
    needles: [accountId, user.id, user.email, hashSecret(user.email)],
  };
}

const deleteMe = (node: Node, credential: string, payload?: unknown) =>
  node.app.inject({
    method: 'DELETE',
    url: '/auth/me',
    headers: { authorization: `Bearer ${credential}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

/** Opens a 2025-era MCP session and its event stream; `ended` resolves when the server ends it. */
async function mcpStream(base: string, credential: string) {
  const sessionId = await openSession(base, credential);
  const response = await fetch(new URL('/mcp', base), {
    headers: {
      authorization: `Bearer ${credential}`,
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
    },
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done) {
        /* keep reading */
      }
    } catch {
      /* reset by the server: ended too */
    }
    return 'ended' as const;
  })();
  return { ended };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([
    promise,
    new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms)),
  ]);
}

describe('DELETE /auth/me', () => {
  it('takes a session and the password: an API key is 401, a missing password 400, a wrong one 403 and nothing changes', async () => {
    const node = await startNode();
    const victim = await personWithEverything(node, 20);
    // The duplicate finder keeps rows of its own from the change log: let it catch up first.
    await node.runtime.duplicates.finder.drain();
    const before = await rowsMentioning(victim.needles);

    for (const key of [victim.key.apiKey, victim.user.apiKey]) {
      const response = await deleteMe(node, key, { password: PASSWORD });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toMatch(/signed-in session/);
    }
    // No body names the body; a body without a password names the password.
    for (const [payload, field] of [
      [undefined, 'body'],
      [{}, 'body.password'],
      [{ password: '' }, 'body.password'],
    ] as const) {
      const missing = await deleteMe(node, victim.token, payload);
      expect(missing.statusCode, JSON.stringify(payload)).toBe(400);
      expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field }] });
    }
    const wrong = await deleteMe(node, victim.token, { password: 'not-my-password' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toMatchObject({
      code: 'FORBIDDEN',
      error: 'Password is incorrect: your account was not deleted',
      details: [{ field: 'password' }],
    });

    // Only the failed attempt was counted (the password throttle, per user).
    const after = await rowsMentioning(victim.needles);
    expect({ ...after, auth_throttle: 0 }).toEqual({ ...before, auth_throttle: 0 });
    expect(after.auth_throttle).toBe(before.auth_throttle! + 1);
    expect((await victim.call({ method: 'GET', url: '/auth/me' })).statusCode).toBe(200);
  });

  it('ends every credential and what it opened, frees the email, and leaves no row of the account in any table', async () => {
    const node = await startNode();
    const control = await personWithEverything(node, 30);
    const victim = await personWithEverything(node, 1_600);
    const otherSession = victim.otherSession;
    // The duplicate finder keeps rows of its own from the change log: let it catch up first.
    await node.runtime.duplicates.finder.drain();

    const before = await rowsMentioning(victim.needles);
    const controlBefore = await rowsMentioning(control.needles);
    // The victim's data is in every table that holds an account's or a person's rows…
    expect(Object.keys(nonZero(before)).sort()).toEqual(
      expect.arrayContaining([
        'account_members',
        'accounts',
        'api_key_usage_days',
        'api_keys',
        'auth_throttle',
        'billing_events',
        'entities',
        'entity_degrees',
        'entity_type_counts',
        'graph_daily',
        'graph_events',
        'invoices',
        'observations',
        'payment_methods',
        'relations',
        'sessions',
        'subscriptions',
        'usage_daily',
        'usage_monthly',
        'users',
      ]),
    );
    // …and more than one batch of it in the graph's.
    expect(before.entities).toBeGreaterThan(BATCH);
    expect(before.observations).toBeGreaterThan(BATCH);
    expect(before.relations).toBeGreaterThan(BATCH);

    // Connections open with each kind of credential.
    const onKey = await TestSocket.open(node.base, victim.key.apiKey);
    const onPersonal = await TestSocket.open(node.base, victim.user.apiKey);
    sockets.push(onKey, onPersonal);
    const mcpOnKey = await mcpStream(node.base, victim.key.apiKey);
    const mcpOnSession = await mcpStream(node.base, otherSession);
    // A metered request not flushed yet: its count must not outlive the account.
    await node.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { authorization: `Bearer ${victim.key.apiKey}` },
    });

    const deleted = await deleteMe(node, victim.token, { password: PASSWORD });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ success: true });

    // Unreachable at once, by every credential it had.
    for (const credential of [victim.token, otherSession, victim.key.apiKey, victim.user.apiKey]) {
      const response = await node.app.inject({
        method: 'GET',
        url: '/api/entities',
        headers: { authorization: `Bearer ${credential}` },
      });
      expect(response.statusCode).toBe(401);
    }
    expect((await victim.call({ method: 'GET', url: '/auth/me' })).statusCode).toBe(401);
    expect({
      key: await onKey.closedWithin(),
      personal: await onPersonal.closedWithin(),
      mcpKey: await within(mcpOnKey.ended, 5_000),
      mcpSession: await within(mcpOnSession.ended, 5_000),
    }).toEqual({
      key: { code: 4401, reason: 'API key revoked' },
      personal: { code: 4401, reason: 'API key revoked' },
      mcpKey: 'ended',
      mcpSession: 'ended',
    });

    await node.runtime.accounts.purge.idle();
    // The meter's next flush drops the deleted account's count and still writes the others'.
    const controlOps = async () =>
      Number(
        (
          await db()
            .selectFrom('usage_daily')
            .select((eb) => eb.fn.sum<string>('count').as('n'))
            .where('account_id', '=', control.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const opsBefore = await controlOps();
    await control.call({ method: 'GET', url: '/api/entities' });
    await node.runtime.usage.flush();
    await node.runtime.keys.usage.flush();
    expect(await controlOps()).toBe(opsBefore + 1);

    expect(nonZero(await rowsMentioning(victim.needles))).toEqual({});
    // Signing in fails (after the count: a failed sign-in is recorded against the email).
    const login = await node.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: victim.user.email, password: PASSWORD },
    });
    expect(login.statusCode).toBe(401);
    const controlAfter = await rowsMentioning(control.needles);
    expect({ ...controlAfter, usage_daily: 0, usage_monthly: 0 }).toEqual({
      ...controlBefore,
      usage_daily: 0,
      usage_monthly: 0,
    });

    // The email signs up again, into a new, empty account.
    const again = await node.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: {
        email: victim.user.email,
        password: PASSWORD,
        firstName: 'Ada',
        lastName: 'Again',
      },
    });
    expect(again.statusCode, again.body).toBe(201);
    const fresh = again.json<{ token: string; user: { id: string } }>();
    expect(fresh.user.id).not.toBe(victim.user.id);
    const list = await as(node.app, fresh.token)({ method: 'GET', url: '/api/entities' });
    expect(list.json().total).toBe(0);
  }, 180_000);

  it('finishes a purge cut short by a crash when the server starts again', async () => {
    let crash = true;
    const first = await startNode(
      {},
      {
        afterBatch: () => {
          // The process dies right after the first batch committed.
          if (crash) throw new Error('simulated crash');
        },
      },
    );
    const victim = await personWithEverything(first, 1_200);
    const before = await rowsMentioning(victim.needles);

    expect((await deleteMe(first, victim.token, { password: PASSWORD })).statusCode).toBe(200);
    await first.runtime.accounts.purge.idle();
    await first.close();

    // One batch went, the rest is still there, and the account is marked.
    const midway = await rowsMentioning(victim.needles);
    const total = (counts: Record<string, number>) =>
      Object.values(counts).reduce((sum, n) => sum + n, 0);
    expect(total(midway)).toBeLessThan(total(before));
    expect(total(midway)).toBeGreaterThan(BATCH);
    expect(midway.accounts).toBe(1);
    expect(midway.users).toBe(0);
    const marked = await db()
      .selectFrom('accounts')
      .select('deleted_at')
      .where('id', '=', victim.accountId)
      .executeTakeFirstOrThrow();
    expect(marked.deleted_at).not.toBeNull();

    // A request that authenticated before the deletion cannot write into the marked account.
    const late = createGraphService({
      db: db(),
      now: () => new Date(),
      bounds: { maxRows: 1_000, maxBytes: 4 << 20 },
    }).createEntities(
      {
        accountId: victim.accountId,
        space: { id: victim.accountId, slug: 'default' },
        userId: victim.user.id,
        actor: { kind: 'api_key', id: victim.key.id },
        credential: { kind: 'api_key', id: victim.key.id, expiresAt: null },
        role: 'owner' as const,
      },
      [{ name: 'late', type: 'concept' }],
      { existing: 'reject' },
    );
    await expect(late).rejects.toMatchObject({ status: 404 });

    crash = false;
    const second = await startNode();
    // The email is free even before the purge ends.
    const again = await second.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: {
        email: victim.user.email,
        password: PASSWORD,
        firstName: 'Ada',
        lastName: 'Again',
      },
    });
    expect(again.statusCode).toBe(201);
    await second.runtime.accounts.purge.idle();
    const after = await rowsMentioning([victim.accountId, victim.user.id]);
    expect(nonZero(after)).toEqual({});
  }, 180_000);

  it('deletes only the accounts the person alone owns: another owner keeps a shared account', async () => {
    const node = await startNode();
    const leaver = await signUp(node.app);
    const partner = await signUp(node.app);
    const leaverAccount = await accountOf(leaver.user.id);
    const partnerAccount = await accountOf(partner.user.id);
    // The leaver co-owns the partner's account, and the partner is a member of the leaver's.
    await db()
      .insertInto('account_members')
      .values([
        { account_id: partnerAccount, user_id: leaver.user.id, role: 'owner' },
        { account_id: leaverAccount, user_id: partner.user.id, role: 'member' },
      ])
      .execute();
    await as(
      node.app,
      partner.token,
    )({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'shared', type: 'concept', metadata: {}, observations: ['kept'] },
    });

    // Alone owning an account with another member, the leaver must hand it on or empty it first.
    const refused = await deleteMe(node, leaver.token, { password: PASSWORD });
    expect(refused.statusCode).toBe(409);
    const removed = await as(
      node.app,
      leaver.token,
    )({ method: 'DELETE', url: `/api/members/${partner.user.id}` });
    expect(removed.statusCode, removed.body).toBe(200);

    expect((await deleteMe(node, leaver.token, { password: PASSWORD })).statusCode).toBe(200);
    await node.runtime.accounts.purge.idle();

    expect(nonZero(await rowsMentioning([leaverAccount, leaver.user.id]))).toEqual({});
    const members = await db()
      .selectFrom('account_members')
      .select(['account_id', 'user_id', 'role'])
      .where('user_id', '=', partner.user.id)
      .execute();
    expect(members).toEqual([
      { account_id: partnerAccount, user_id: partner.user.id, role: 'owner' },
    ]);
    const partnerView = await as(node.app, partner.token)({ method: 'GET', url: '/api/entities' });
    expect(partnerView.json().total).toBe(1);
  });
});

describe('DELETE /auth/me with a payment provider', () => {
  const WEBHOOK_SECRET = 'whsec_test_engram';
  let fake: StripeFake;
  beforeAll(async () => {
    fake = await StripeFake.start({ webhookSecret: WEBHOOK_SECRET });
  });
  afterAll(() => fake.stop());

  const stripeNode = () =>
    startNode({
      STRIPE_SECRET_KEY: 'sk_test_engram',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_engram',
      STRIPE_API_BASE: fake.baseUrl,
      STRIPE_PRICE_STARTER_MONTHLY: 'price_1StarterM',
      STRIPE_PRICE_STARTER_ANNUAL: 'price_1StarterY',
      STRIPE_PRICE_PRO_MONTHLY: 'price_1ProM',
      STRIPE_PRICE_PRO_ANNUAL: 'price_1ProY',
      STRIPE_PRICE_TEAM_MONTHLY: 'price_1TeamM',
      STRIPE_PRICE_TEAM_ANNUAL: 'price_1TeamY',
    });

  /** A person who paid for Pro through checkout (the provider's events delivered). */
  async function subscriber(node: Node) {
    const person = await signUp(node.app);
    const checkout = await as(
      node.app,
      person.token,
    )({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: {
        priceId: 'price_1ProM',
        successUrl: `${node.base}/dashboard?success=true`,
        cancelUrl: `${node.base}/billing`,
      },
    });
    expect(checkout.statusCode, checkout.body).toBe(200);
    const sessionId = new URL(checkout.json().url).pathname.split('/').pop()!;
    for (const event of fake.completeCheckout(sessionId)) {
      const signed = fake.sign(event);
      const delivered = await node.app.inject({
        method: 'POST',
        url: '/api/billing/webhook',
        headers: { 'content-type': 'application/json', 'stripe-signature': signed.signature },
        payload: signed.payload,
      });
      expect(delivered.statusCode).toBe(200);
    }
    const subscriptionId = fake.sessions.get(sessionId)!.subscription as string;
    expect(fake.subscriptions.get(subscriptionId)!.status).toBe('active');
    return { ...person, subscriptionId };
  }

  it('cancels the subscription at the provider at once, not at the period end', async () => {
    const node = await stripeNode();
    const person = await subscriber(node);
    const seen = fake.requests.length;

    expect((await deleteMe(node, person.token, { password: PASSWORD })).statusCode).toBe(200);
    expect(fake.calls.slice(seen)).toContain(`DELETE /v1/subscriptions/${person.subscriptionId}`);
    expect(fake.subscriptions.get(person.subscriptionId)!.status).toBe('canceled');
    await node.runtime.accounts.purge.idle();
    expect(nonZero(await rowsMentioning([person.user.id, person.user.email]))).toEqual({});
  });

  it('deletes nothing when the provider cannot cancel (503), and succeeds when asked again', async () => {
    const node = await stripeNode();
    const person = await subscriber(node);
    fake.failNext('DELETE', `/v1/subscriptions/${person.subscriptionId}`, 400, 'Try later');

    const refused = await deleteMe(node, person.token, { password: PASSWORD });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toMatch(/could not be cancelled.*nothing was deleted/);
    expect(fake.subscriptions.get(person.subscriptionId)!.status).toBe('active');
    expect((await as(node.app, person.token)({ method: 'GET', url: '/auth/me' })).statusCode).toBe(
      200,
    );

    expect((await deleteMe(node, person.token, { password: PASSWORD })).statusCode).toBe(200);
    expect(fake.subscriptions.get(person.subscriptionId)!.status).toBe('canceled');
  });
});
