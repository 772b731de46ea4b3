import {
  analyticsSummary,
  BILLING_NOT_FOUND,
  BILLING_OWNER_ONLY,
  invoiceList,
  PAYMENTS_NOT_CONFIGURED,
  paymentMethodList,
  planList,
  subscription,
  subscriptionChange,
} from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { accountIdOf, as, createTestApp, signUp, type TestApp } from '../../test/harness.js';
import { errorShapeProblem } from '../../test/http-assertions.js';
import { currentPlan, effectivePlan } from '../entitlements/entitlements.service.js';

/**
 * Billing with no payment provider configured (the `none` provider, the
 * default): upgrades apply at once, downgrades at the period end (as with a
 * provider), and the account's limits follow; no cards, no invoices, no
 * webhooks.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function subscriptionOf(call: Call) {
  const response = await call({ method: 'GET', url: '/api/billing/subscription' });
  expect(response.statusCode, response.body).toBe(200);
  return subscription.parse(response.json());
}

async function changePlan(call: Call, planId: string, priceId: string | null) {
  return call({ method: 'POST', url: '/api/billing/change-plan', payload: { planId, priceId } });
}

/** A second person who is a member (not the owner) of the owner's account, signed in to it. */
async function memberOf(ownerUserId: string): Promise<Call> {
  const member = await signUp(t.app, { firstName: 'Mary', lastName: 'Member' });
  const accountId = await accountIdOf(t, ownerUserId);
  await t.database.db
    .insertInto('account_members')
    .values({ account_id: accountId, user_id: member.user.id, role: 'member' })
    .execute();
  await t.database.db
    .updateTable('sessions')
    .set({ account_id: accountId })
    .where('user_id', '=', member.user.id)
    .execute();
  return as(t.app, member.token);
}

/** The period ends, as time would: its end (and a downgrade's) moved into the past. */
async function periodEnds(accountId: string) {
  const past = new Date(Date.now() - 60_000);
  await t.database.db
    .updateTable('subscriptions')
    .set({ current_period_end: past, grace_until: past })
    .where('account_id', '=', accountId)
    .execute();
}

function expectError(response: Awaited<ReturnType<Call>>, status: number, message?: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(errorShapeProblem(response)).toBeNull();
  if (message) expect(response.json().error).toBe(message);
}

describe('billing without a payment provider', () => {
  it('lists every plan with the catalog price ids, free without one', async () => {
    const { token } = await signUp(t.app);
    const response = await as(t.app, token)({ method: 'GET', url: '/api/billing/plans' });
    expect(response.statusCode).toBe(200);
    const { plans } = planList.parse(response.json());
    expect(plans.map((plan) => [plan.id, plan.priceId, plan.interval, plan.price])).toEqual([
      ['free', null, null, 0],
      ['starter', 'price_starter_monthly', 'month', 1000],
      ['pro', 'price_pro_monthly', 'month', 2000],
      ['team', 'price_team_monthly', 'month', 6000],
      ['starter-annual', 'price_starter_annual', 'year', 10000],
      ['pro-annual', 'price_pro_annual', 'year', 20000],
      ['team-annual', 'price_team_annual', 'year', 60000],
    ]);
    expect(plans.find((plan) => plan.id === 'starter')?.popular).toBe(true);
    expect(plans.find((plan) => plan.id === 'team')?.features).toMatchObject({
      maxEntities: 1_000_000,
      maxQueries: 10_000_000,
      maxApiKeys: 50,
      maxWebhooks: -1,
    });
    // Exactly the shared shape: no server-only limits leak into it.
    expect(Object.keys(plans[0]!.features).sort()).toEqual(
      ['features', 'maxApiKeys', 'maxEntities', 'maxQueries', 'maxWebhooks'].sort(),
    );
  });

  it('starts on free; no cards, no invoices, and card setup is refused clearly', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    expect(await subscriptionOf(call)).toEqual({
      plan: 'free',
      name: 'Free',
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      features: expect.objectContaining({ maxEntities: 1_000, maxQueries: 15_000, maxApiKeys: 1 }),
      limitsPlan: { id: 'free', name: 'Free' },
      scheduledChange: null,
      provider: 'none',
      // The test server listens on loopback without PUBLIC_URL: owners choose.
      planChanges: 'self',
    });
    const methods = await call({ method: 'GET', url: '/api/billing/payment-methods' });
    expect(paymentMethodList.parse(methods.json())).toEqual({ paymentMethods: [] });
    const invoices = await call({ method: 'GET', url: '/api/billing/invoices' });
    expect(invoiceList.parse(invoices.json())).toEqual({ invoices: [] });

    expectError(
      await call({ method: 'POST', url: '/api/billing/setup-intent', payload: {} }),
      409,
      PAYMENTS_NOT_CONFIGURED,
    );
    expectError(
      await call({ method: 'POST', url: '/api/billing/payment-methods/pm_1/default', payload: {} }),
      404,
      'Payment method not found',
    );
    expectError(
      await call({ method: 'DELETE', url: '/api/billing/payment-methods/pm_1' }),
      404,
      'Payment method not found',
    );
    // Nobody can post provider events to a server without a provider.
    const webhook = await t.app.inject({
      method: 'POST',
      url: '/api/billing/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{"id":"evt_1"}',
    });
    expectError(webhook, 409, PAYMENTS_NOT_CONFIGURED);
  });

  it('moves up at once, to Free at the period end, and the limits follow', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const key = (name: string) =>
      call({ method: 'POST', url: '/api/keys', payload: { name, permissions: [] } });
    expect((await key('one')).statusCode).toBe(201);
    expect((await key('two')).statusCode).toBe(402);

    const before = Date.now();
    const up = await changePlan(call, 'pro', 'price_pro_monthly');
    expect(up.statusCode, up.body).toBe(200);
    const changed = subscriptionChange.parse(up.json());
    expect(changed.subscription).toMatchObject({
      plan: 'pro',
      name: 'Pro',
      status: 'active',
      cancelAtPeriodEnd: false,
      limitsPlan: { id: 'pro', name: 'Pro' },
      features: { maxEntities: 100_000, maxQueries: 1_000_000, maxApiKeys: 10, maxWebhooks: 20 },
    });
    // A month from now (28 to 31 days).
    const days = (changed.subscription.currentPeriodEnd! * 1000 - before) / 86_400_000;
    expect(days).toBeGreaterThan(27.9);
    expect(days).toBeLessThan(31.1);
    expect(await subscriptionOf(call)).toEqual(changed.subscription);
    expect((await key('two')).statusCode).toBe(201);

    // The dashboard reads the same plan.
    const summary = analyticsSummary.parse(
      (await call({ method: 'GET', url: '/api/analytics' })).json(),
    );
    expect(summary.userPlan).toBe('pro');
    expect(summary.plan.limits.apiKeys).toBe(10);

    const annual = await changePlan(call, 'pro-annual', 'price_pro_annual');
    expect(annual.statusCode).toBe(200);
    const year = (annual.json().subscription.currentPeriodEnd * 1000 - Date.now()) / 86_400_000;
    expect(year).toBeGreaterThan(364);
    expect(year).toBeLessThan(367);

    const down = await changePlan(call, 'free', null);
    expect(down.statusCode).toBe(200);
    const periodEnd = annual.json().subscription.currentPeriodEnd;
    // Free from the period end: the paid year stays until then.
    expect(down.json().subscription).toMatchObject({
      plan: 'pro-annual',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: periodEnd,
      limitsPlan: { id: 'pro-annual' },
      scheduledChange: { plan: 'free', name: 'Free', at: periodEnd },
    });
    await periodEnds(await accountIdOf(t, user.id));
    expect(await subscriptionOf(call)).toMatchObject({
      plan: 'free',
      currentPeriodEnd: null,
      limitsPlan: { id: 'free' },
      scheduledChange: null,
      features: { maxApiKeys: 1 },
    });
    // Both keys are kept; a third is refused on free.
    const keys = await call({ method: 'GET', url: '/api/keys' });
    expect(keys.json().apiKeys).toHaveLength(2);
    expect((await key('three')).statusCode).toBe(402);
  });

  it('downgrades at the period end, keeping the plan in force until then; choosing it again calls that off', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const accountId = await accountIdOf(t, user.id);
    const team = subscriptionChange.parse(
      (await changePlan(call, 'team', 'price_team_monthly')).json(),
    ).subscription;
    const periodEnd = team.currentPeriodEnd!;

    const down = await changePlan(call, 'starter', 'price_starter_monthly');
    expect(down.statusCode, down.body).toBe(200);
    const scheduled = {
      plan: 'team',
      name: 'Power User',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: periodEnd,
      limitsPlan: { id: 'team', name: 'Power User' },
      features: { maxEntities: 1_000_000 },
      scheduledChange: { plan: 'starter', name: 'Starter', at: periodEnd },
    };
    expect(down.json().subscription).toMatchObject(scheduled);
    expect(await subscriptionOf(call)).toMatchObject(scheduled);
    expect((await currentPlan(t.database.db, accountId)).id).toBe('team');
    // Another downgrade before the period ends replaces the scheduled one; the period stays.
    const lower = await changePlan(call, 'pro', 'price_pro_monthly');
    expect(lower.json().subscription).toMatchObject({
      plan: 'team',
      currentPeriodEnd: periodEnd,
      scheduledChange: { plan: 'pro', at: periodEnd },
    });

    // Choosing the plan in force again: nothing scheduled, the same period.
    const kept = await changePlan(call, 'team', 'price_team_monthly');
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json().subscription).toMatchObject({
      plan: 'team',
      currentPeriodEnd: periodEnd,
      limitsPlan: { id: 'team' },
      scheduledChange: null,
    });
    // Choosing it once more changes nothing.
    expect((await changePlan(call, 'team', 'price_team_monthly')).json().subscription).toEqual(
      kept.json().subscription,
    );

    // Scheduled again, then the period ends: Starter and its limits, read from the clock alone.
    await changePlan(call, 'starter', 'price_starter_monthly');
    await periodEnds(accountId);
    const after = await subscriptionOf(call);
    expect(after).toMatchObject({
      plan: 'starter',
      status: 'active',
      cancelAtPeriodEnd: false,
      limitsPlan: { id: 'starter' },
      features: { maxEntities: 10_000 },
      scheduledChange: null,
    });
    // The next period has begun (nothing renews one without a provider).
    expect(after.currentPeriodEnd! * 1000).toBeGreaterThan(Date.now());
    expect((await currentPlan(t.database.db, accountId)).id).toBe('starter');
    const summary = analyticsSummary.parse(
      (await call({ method: 'GET', url: '/api/analytics' })).json(),
    );
    expect(summary.userPlan).toBe('starter');

    // An upgrade still applies at once, and Free is scheduled as a cancellation that Reactivate undoes.
    const up = await changePlan(call, 'pro-annual', 'price_pro_annual');
    expect(up.json().subscription).toMatchObject({ plan: 'pro-annual', scheduledChange: null });
    const toFree = await changePlan(call, 'free', null);
    const yearEnd = up.json().subscription.currentPeriodEnd;
    expect(toFree.json().subscription).toMatchObject({
      plan: 'pro-annual',
      cancelAtPeriodEnd: true,
      scheduledChange: { plan: 'free', at: yearEnd },
    });
    const back = await call({
      method: 'POST',
      url: '/api/billing/reactivate-subscription',
      payload: {},
    });
    expect(back.json().subscription).toMatchObject({
      plan: 'pro-annual',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: yearEnd,
      scheduledChange: null,
    });
    // Annual to monthly of the same tier is a downgrade too: at the end of the paid year.
    const monthly = await changePlan(call, 'pro', 'price_pro_monthly');
    expect(monthly.json().subscription).toMatchObject({
      plan: 'pro-annual',
      scheduledChange: { plan: 'pro', at: yearEnd },
    });
  });

  it('refuses unknown plans and prices that are not the plan’s', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    expectError(await changePlan(call, 'platinum', 'price_platinum'), 404, BILLING_NOT_FOUND);
    const wrong = await changePlan(call, 'pro', 'price_starter_monthly');
    expectError(wrong, 400);
    expect(wrong.json().details[0].field).toBe('body.priceId');
    expectError(await changePlan(call, 'free', 'price_pro_monthly'), 400);
    expectError(await changePlan(call, 'pro', null), 400);
    const missing = await call({ method: 'POST', url: '/api/billing/change-plan', payload: {} });
    expectError(missing, 400);
    expect(missing.json().details.map((d: { field: string }) => d.field)).toContain('body.planId');
    expect((await subscriptionOf(call)).plan).toBe('free');
  });

  it('cancels at the period end, reactivates, and cancels at once when asked', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    expectError(
      await call({
        method: 'POST',
        url: '/api/billing/cancel-subscription',
        payload: { immediate: false },
      }),
      409,
    );
    await changePlan(call, 'starter', 'price_starter_monthly');
    const periodEnd = (await subscriptionOf(call)).currentPeriodEnd;

    const cancelled = await call({
      method: 'POST',
      url: '/api/billing/cancel-subscription',
      payload: { immediate: false },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().subscription).toMatchObject({
      plan: 'starter',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: periodEnd,
      limitsPlan: { id: 'starter' },
    });

    const back = await call({
      method: 'POST',
      url: '/api/billing/reactivate-subscription',
      payload: {},
    });
    expect(back.statusCode).toBe(200);
    expect(back.json().subscription).toMatchObject({ plan: 'starter', cancelAtPeriodEnd: false });

    const now = await call({
      method: 'POST',
      url: '/api/billing/cancel-subscription',
      payload: { immediate: true },
    });
    expect(now.json().subscription).toMatchObject({ plan: 'free', limitsPlan: { id: 'free' } });
    expectError(
      await call({ method: 'POST', url: '/api/billing/reactivate-subscription', payload: {} }),
      409,
    );
  });

  it('lapses to the free limits at the end of a cancelled period, keeping the data', async () => {
    const { token, user } = await signUp(t.app);
    const call = as(t.app, token);
    const accountId = await accountIdOf(t, user.id);
    await changePlan(call, 'starter', 'price_starter_monthly');
    const auth: SpaceAuth = {
      accountId,
      space: { id: accountId, slug: 'default' },
      userId: user.id,
      actor: { kind: 'user', id: user.id },
      credential: { kind: 'session', id: 'test', expiresAt: null },
      role: 'owner' as const,
    };
    // 1,001 entities: more than the free plan's 1,000.
    await t.runtime.graph.createEntities(
      auth,
      Array.from({ length: 1_001 }, (_, index) => ({ name: `Entity ${index}`, type: 'concept' })),
      { existing: 'skip' },
    );
    await call({ method: 'POST', url: '/api/billing/cancel-subscription', payload: {} });
    expect((await currentPlan(t.database.db, accountId)).id).toBe('starter');

    // The period ends (moved into the past, as time would).
    await t.database.db
      .updateTable('subscriptions')
      .set({ current_period_end: new Date(Date.now() - 60_000) })
      .where('account_id', '=', accountId)
      .execute();
    expect(await subscriptionOf(call)).toMatchObject({
      plan: 'free',
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      limitsPlan: { id: 'free' },
    });
    // Over the free entity limit: reads and deletes work, creating does not.
    const list = await call({ method: 'GET', url: '/api/entities?limit=5' });
    expect(list.statusCode).toBe(200);
    const create = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'One too many', type: 'concept' },
    });
    expectError(create, 402);
    expect(create.json().error).toContain('Free plan allows 1,000 entities');
    const first = list.json().entities[0];
    expect((await call({ method: 'DELETE', url: `/api/entities/${first.id}` })).statusCode).toBe(
      200,
    );
    const totals = analyticsSummary.parse(
      (await call({ method: 'GET', url: '/api/analytics' })).json(),
    );
    expect(totals.totalEntities).toBe(1_000);
  });

  it('applies a checkout at once without a provider and returns to the success address', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    const checkout = await call({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: {
        priceId: 'price_team_annual',
        successUrl: 'http://localhost:5173/dashboard?success=true&plan=team-annual',
        cancelUrl: 'http://localhost:5173/billing?canceled=true&plan=team-annual',
      },
    });
    expect(checkout.statusCode, checkout.body).toBe(200);
    expect(checkout.json()).toEqual({
      url: 'http://localhost:5173/dashboard?success=true&plan=team-annual',
    });
    expect(await subscriptionOf(call)).toMatchObject({ plan: 'team-annual', name: 'Power User' });

    const bad = await call({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: { priceId: 'price_pro_monthly', successUrl: 'javascript:alert(1)', cancelUrl: 'x' },
    });
    expectError(bad, 400);
    expect(bad.json().details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['body.successUrl', 'body.cancelUrl']),
    );
    expectError(
      await call({
        method: 'POST',
        url: '/api/billing/checkout',
        payload: {
          priceId: 'price_nothing',
          successUrl: 'http://localhost/a',
          cancelUrl: 'http://localhost/b',
        },
      }),
      404,
      BILLING_NOT_FOUND,
    );
  });

  it('lets only the owner change billing; members read it', async () => {
    const owner = await signUp(t.app);
    const member = await memberOf(owner.user.id);
    expect((await subscriptionOf(member)).plan).toBe('free');
    expect((await member({ method: 'GET', url: '/api/billing/payment-methods' })).statusCode).toBe(
      200,
    );
    expect((await member({ method: 'GET', url: '/api/billing/invoices' })).statusCode).toBe(200);

    const attempts: Parameters<Call>[0][] = [
      {
        method: 'POST',
        url: '/api/billing/change-plan',
        payload: { planId: 'pro', priceId: 'price_pro_monthly' },
      },
      {
        method: 'POST',
        url: '/api/billing/checkout',
        payload: {
          priceId: 'price_pro_monthly',
          successUrl: 'http://localhost/a',
          cancelUrl: 'http://localhost/b',
        },
      },
      { method: 'POST', url: '/api/billing/cancel-subscription', payload: { immediate: false } },
      { method: 'POST', url: '/api/billing/reactivate-subscription', payload: {} },
      { method: 'POST', url: '/api/billing/setup-intent', payload: {} },
      { method: 'POST', url: '/api/billing/payment-methods/pm_1/default', payload: {} },
      { method: 'DELETE', url: '/api/billing/payment-methods/pm_1' },
    ];
    for (const attempt of attempts) {
      expectError(await member(attempt), 403, BILLING_OWNER_ONLY);
    }
    expect((await subscriptionOf(as(t.app, owner.token))).plan).toBe('free');
  });

  it('takes a session only: API keys and no credential get 401', async () => {
    const { token, user } = await signUp(t.app);
    const key = await t.app.inject({
      method: 'GET',
      url: '/api/billing/subscription',
      headers: { authorization: `Bearer ${user.apiKey}` },
    });
    expectError(key, 401);
    expectError(await t.app.inject({ method: 'GET', url: '/api/billing/plans' }), 401);
    expect((await as(t.app, token)({ method: 'GET', url: '/api/billing/plans' })).statusCode).toBe(
      200,
    );
  });
});

describe('entitlements', () => {
  const future = new Date(Date.now() + 86_400_000);
  const past = new Date(Date.now() - 86_400_000);
  const row = (overrides: Partial<Parameters<typeof effectivePlan>[0] & object> = {}) => ({
    plan_id: 'pro',
    status: 'active',
    cancel_at_period_end: false,
    current_period_end: future,
    grace_plan_id: null,
    grace_until: null,
    ...overrides,
  });
  const now = new Date();

  it('follows the plan while it is active or trialing', () => {
    expect(effectivePlan(row(), now).id).toBe('pro');
    expect(effectivePlan(row({ status: 'trialing' }), now).id).toBe('pro');
    expect(effectivePlan(row({ current_period_end: past }), now).id).toBe('pro');
    expect(effectivePlan(undefined, now).id).toBe('free');
    expect(effectivePlan(row({ plan_id: 'unknown' }), now).id).toBe('free');
  });

  it('falls back to free when a paid plan lapses or fails', () => {
    for (const status of ['past_due', 'unpaid', 'canceled', 'incomplete', 'paused']) {
      expect(effectivePlan(row({ status }), now).id).toBe('free');
    }
    expect(effectivePlan(row({ cancel_at_period_end: true }), now).id).toBe('pro');
    expect(
      effectivePlan(row({ cancel_at_period_end: true, current_period_end: past }), now).id,
    ).toBe('free');
  });

  it('keeps a higher plan until the paid period of a downgrade ends', () => {
    const downgraded = row({ plan_id: 'starter', grace_plan_id: 'team', grace_until: future });
    expect(effectivePlan(downgraded, now).id).toBe('team');
    expect(effectivePlan({ ...downgraded, grace_until: past }, now).id).toBe('starter');
    expect(effectivePlan({ ...downgraded, status: 'past_due' }, now).id).toBe('free');
    // A grace plan lower than the plan (an upgrade since) never lowers the limits.
    expect(effectivePlan(row({ grace_plan_id: 'starter', grace_until: future }), now).id).toBe(
      'pro',
    );
  });
});
