import {
  BILLING_OWNER_ONLY,
  invoiceList,
  paymentMethodList,
  planList,
  setupIntent,
  subscription,
} from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { accountIdOf, as, createTestApp, signUp, type TestApp } from '../../test/harness.js';
import { errorShapeProblem } from '../../test/http-assertions.js';
import { currentPlan } from '../entitlements/entitlements.service.js';
import { StripeFake } from '../../test/fakes/stripe.js';

/**
 * Billing on Stripe, through the official SDK pointed at a local fake of
 * Stripe's HTTP API (test/fakes/stripe.ts) that records what it was
 * asked. Webhooks are signed with the SDK's own test-header helper.
 */

const WEBHOOK_SECRET = 'whsec_test_engram';
const PRICES = {
  STRIPE_PRICE_STARTER_MONTHLY: 'price_1StarterM',
  STRIPE_PRICE_STARTER_ANNUAL: 'price_1StarterY',
  STRIPE_PRICE_PRO_MONTHLY: 'price_1ProM',
  STRIPE_PRICE_PRO_ANNUAL: 'price_1ProY',
  STRIPE_PRICE_TEAM_MONTHLY: 'price_1TeamM',
  STRIPE_PRICE_TEAM_ANNUAL: 'price_1TeamY',
};
const ORIGIN = 'http://engram.test';

let fake: StripeFake;
let t: TestApp;

beforeAll(async () => {
  fake = await StripeFake.start({ webhookSecret: WEBHOOK_SECRET });
  t = await createTestApp({
    STRIPE_SECRET_KEY: 'sk_test_engram',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_engram',
    STRIPE_API_BASE: fake.baseUrl,
    PUBLIC_URL: ORIGIN,
    ...PRICES,
  });
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

type Call = ReturnType<typeof as>;
type Event = ReturnType<StripeFake['event']>;

async function subscriptionOf(call: Call) {
  const response = await call({ method: 'GET', url: '/api/billing/subscription' });
  expect(response.statusCode, response.body).toBe(200);
  return subscription.parse(response.json());
}

function deliver(event: Event, signature?: string, payload?: string) {
  const signed = fake.sign(event);
  return t.app.inject({
    method: 'POST',
    url: '/api/billing/webhook',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature === '' ? {} : { 'stripe-signature': signature ?? signed.signature }),
    },
    payload: payload ?? signed.payload,
  });
}

async function deliverAll(events: Event[]) {
  for (const event of events) {
    const response = await deliver(event);
    expect(response.statusCode, response.body).toBe(200);
  }
}

const checkoutBody = (priceId: string) => ({
  priceId,
  successUrl: `${ORIGIN}/dashboard?success=true&plan=pro`,
  cancelUrl: `${ORIGIN}/billing?canceled=true&plan=pro`,
});

/** A new owner who went through checkout for `priceId` (events delivered). */
async function subscribed(priceId: string) {
  const owner = await signUp(t.app);
  const call = as(t.app, owner.token);
  const accountId = await accountIdOf(t, owner.user.id);
  const response = await call({
    method: 'POST',
    url: '/api/billing/checkout',
    payload: checkoutBody(priceId),
  });
  expect(response.statusCode, response.body).toBe(200);
  const sessionId = new URL(response.json().url).pathname.split('/').pop()!;
  const events = fake.completeCheckout(sessionId);
  await deliverAll(events);
  const session = fake.sessions.get(sessionId)!;
  const stripeSubscription = fake.subscriptions.get(session.subscription as string)!;
  return { ...owner, call, accountId, sessionId, stripeSubscription, events };
}

const itemOf = (sub: Record<string, unknown>) =>
  (sub.items as { data: Record<string, unknown>[] }).data[0]!;

describe('billing on Stripe', () => {
  it('needs every Stripe setting once the secret key is given', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(
      /STRIPE_WEBHOOK_SECRET: is required when STRIPE_SECRET_KEY is set[\s\S]*STRIPE_PRICE_TEAM_ANNUAL/,
    );
    expect(() => loadConfig({ STRIPE_API_BASE: 'ftp://x' })).toThrow(/STRIPE_API_BASE/);
    expect(loadConfig({}).STRIPE_SECRET_KEY).toBeUndefined();
  });

  it('lets pages load Stripe’s card form: its script, frames and API are in the CSP', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://js.stripe.com");
    expect(csp).toContain("frame-src 'self' https://js.stripe.com https://hooks.stripe.com");
    expect(csp).toContain("connect-src 'self' ws: wss: https://api.stripe.com");
  });

  it('lists the configured price ids', async () => {
    const { token } = await signUp(t.app);
    const { plans } = planList.parse(
      (await as(t.app, token)({ method: 'GET', url: '/api/billing/plans' })).json(),
    );
    expect(Object.fromEntries(plans.map((plan) => [plan.id, plan.priceId]))).toEqual({
      free: null,
      starter: 'price_1StarterM',
      'starter-annual': 'price_1StarterY',
      pro: 'price_1ProM',
      'pro-annual': 'price_1ProY',
      team: 'price_1TeamM',
      'team-annual': 'price_1TeamY',
    });
    const sub = await subscriptionOf(as(t.app, token));
    expect(sub.provider).toBe('stripe');
    // Payments decide, whatever PLAN_SELF_SERVICE says.
    expect(sub.planChanges).toBe('provider');
  });

  it('starts a hosted checkout with the caller’s return addresses; the webhooks activate the plan', async () => {
    const owner = await signUp(t.app, { firstName: 'Paying', lastName: 'Person' });
    const call = as(t.app, owner.token);
    const accountId = await accountIdOf(t, owner.user.id);
    const seen = fake.requests.length;
    // The catalog's own id (what the sign-up page sends) names the same plan.
    const response = await call({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: checkoutBody('price_pro_monthly'),
    });
    expect(response.statusCode, response.body).toBe(200);
    const { url } = response.json();
    expect(url).toMatch(new RegExp(`^${fake.baseUrl}/pay/cs_test_`));

    const asked = fake.requests.slice(seen);
    expect(asked.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/customers',
      'POST /v1/checkout/sessions',
    ]);
    expect(asked[0]!.body).toMatchObject({
      email: owner.user.email,
      name: 'Paying Person',
      metadata: { accountId },
    });
    expect(asked[0]!.idempotencyKey).toBe(`engram-customer-${accountId}`);
    expect(asked[1]!.body).toMatchObject({
      mode: 'subscription',
      client_reference_id: accountId,
      line_items: [{ price: 'price_1ProM', quantity: '1' }],
      success_url: `${ORIGIN}/dashboard?success=true&plan=pro`,
      cancel_url: `${ORIGIN}/billing?canceled=true&plan=pro`,
      subscription_data: { metadata: { accountId } },
    });
    // Nothing changes before payment.
    expect((await subscriptionOf(call)).plan).toBe('free');

    const sessionId = url.split('/').pop();
    const events = fake.completeCheckout(sessionId);
    // Delivered in reverse: checkout completion first, the subscription's own event last.
    await deliverAll([...events].reverse());
    const sub = await subscriptionOf(call);
    const stripeSub = fake.subscriptions.get(fake.sessions.get(sessionId)!.subscription as string)!;
    expect(sub).toMatchObject({
      plan: 'pro',
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: itemOf(stripeSub).current_period_end,
      limitsPlan: { id: 'pro' },
      features: { maxEntities: 100_000 },
    });
    expect((await currentPlan(t.database.db, accountId)).id).toBe('pro');

    const invoices = invoiceList.parse(
      (await call({ method: 'GET', url: '/api/billing/invoices' })).json(),
    ).invoices;
    expect(invoices).toEqual([
      {
        id: expect.stringMatching(/^in_/),
        number: expect.stringMatching(/^FAKE-/),
        created: fake.clock,
        amount: 2000,
        status: 'paid',
        hostedInvoiceUrl: expect.stringContaining('/invoices/'),
        invoicePdf: expect.stringMatching(/\.pdf$/),
      },
    ]);
    const methods = paymentMethodList.parse(
      (await call({ method: 'GET', url: '/api/billing/payment-methods' })).json(),
    ).paymentMethods;
    expect(methods).toEqual([
      {
        id: expect.stringMatching(/^pm_/),
        brand: 'visa',
        last4: '4242',
        expMonth: 12,
        expYear: 2031,
        isDefault: false,
      },
    ]);

    // A second checkout for an account already paying is refused: Change Plan moves it.
    const again = await call({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: checkoutBody('price_1TeamM'),
    });
    expect(again.statusCode).toBe(409);
  });

  it('refuses return addresses off this server and prices it does not sell', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    const offSite = await call({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: { ...checkoutBody('price_1ProM'), successUrl: 'https://evil.example/phish' },
    });
    expect(offSite.statusCode).toBe(400);
    expect(offSite.json().details[0].field).toBe('body.successUrl');
    const unknown = await call({
      method: 'POST',
      url: '/api/billing/checkout',
      payload: checkoutBody('price_unknown'),
    });
    expect(unknown.statusCode).toBe(404);
    // Free to paid goes through checkout, not change-plan.
    const direct = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'pro', priceId: 'price_1ProM' },
    });
    expect(direct.statusCode).toBe(409);
  });

  it('upgrades at once (charged now) and downgrades at the period end', async () => {
    const { call, accountId, stripeSubscription } = await subscribed('price_1StarterM');
    const subPath = `/v1/subscriptions/${stripeSubscription.id}`;

    const seen = fake.requests.length;
    const up = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'team', priceId: 'price_1TeamM' },
    });
    expect(up.statusCode, up.body).toBe(200);
    const update = fake.requests.slice(seen).find((r) => r.method === 'POST' && r.path === subPath);
    expect(update?.body).toMatchObject({
      items: [{ id: itemOf(stripeSubscription).id, price: 'price_1TeamM' }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'error_if_incomplete',
      cancel_at_period_end: 'false',
    });
    expect(up.json().subscription).toMatchObject({
      plan: 'team',
      limitsPlan: { id: 'team' },
      features: { maxEntities: 1_000_000 },
    });

    const mark = fake.requests.length;
    const down = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'starter', priceId: 'price_1StarterM' },
    });
    expect(down.statusCode).toBe(200);
    const downgrade = fake.requests
      .slice(mark)
      .find((r) => r.method === 'POST' && r.path === subPath);
    expect(downgrade?.body).toMatchObject({ proration_behavior: 'none' });
    // Starter from the next period; Power User and its limits stay until this one ends.
    const periodEnd = itemOf(fake.subscriptions.get(stripeSubscription.id)!).current_period_end;
    expect(down.json().subscription).toMatchObject({
      plan: 'team',
      limitsPlan: { id: 'team' },
      features: { maxEntities: 1_000_000 },
      scheduledChange: { plan: 'starter', name: 'Starter', at: periodEnd },
    });
    // The subscription's own webhook for that change agrees and changes nothing.
    await deliverAll([
      fake.event('customer.subscription.updated', fake.subscriptions.get(stripeSubscription.id)!, {
        created: fake.clock + 1,
      }),
    ]);
    expect((await subscriptionOf(call)).limitsPlan.id).toBe('team');

    // Choosing Power User again calls the downgrade off, without charging again for the period.
    const keepMark = fake.requests.length;
    const kept = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'team', priceId: 'price_1TeamM' },
    });
    expect(kept.statusCode, kept.body).toBe(200);
    const keep = fake.requests
      .slice(keepMark)
      .find((r) => r.method === 'POST' && r.path === subPath);
    expect(keep?.body).toMatchObject({
      items: [{ price: 'price_1TeamM' }],
      proration_behavior: 'none',
    });
    expect(kept.json().subscription).toMatchObject({
      plan: 'team',
      limitsPlan: { id: 'team' },
      scheduledChange: null,
    });
    await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'starter', priceId: 'price_1StarterM' },
    });

    // The period ends.
    await t.database.db
      .updateTable('subscriptions')
      .set({ grace_until: new Date(Date.now() - 1000) })
      .where('account_id', '=', accountId)
      .execute();
    expect(await subscriptionOf(call)).toMatchObject({
      plan: 'starter',
      limitsPlan: { id: 'starter' },
      scheduledChange: null,
    });
    expect((await currentPlan(t.database.db, accountId)).id).toBe('starter');
  });

  it('moves to Free by cancelling at the period end; reactivates; ends on the deletion event', async () => {
    const { call, accountId, stripeSubscription } = await subscribed('price_1ProY');
    const subPath = `/v1/subscriptions/${stripeSubscription.id}`;

    const seen = fake.requests.length;
    const toFree = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'free', priceId: null },
    });
    expect(toFree.statusCode, toFree.body).toBe(200);
    expect(fake.requests.slice(seen).at(-1)).toMatchObject({
      method: 'POST',
      path: subPath,
      body: { cancel_at_period_end: 'true' },
    });
    expect(toFree.json().subscription).toMatchObject({
      plan: 'pro-annual',
      cancelAtPeriodEnd: true,
      limitsPlan: { id: 'pro-annual' },
      scheduledChange: { plan: 'free' },
    });

    const back = await call({
      method: 'POST',
      url: '/api/billing/reactivate-subscription',
      payload: {},
    });
    expect(back.json().subscription).toMatchObject({
      plan: 'pro-annual',
      cancelAtPeriodEnd: false,
    });
    expect(fake.subscriptions.get(stripeSubscription.id)!.cancel_at_period_end).toBe(false);

    const cancel = await call({
      method: 'POST',
      url: '/api/billing/cancel-subscription',
      payload: { immediate: false },
    });
    expect(cancel.json().subscription).toMatchObject({ cancelAtPeriodEnd: true });
    expect(fake.subscriptions.get(stripeSubscription.id)!.cancel_at_period_end).toBe(true);

    // Stripe ends it at the period end.
    fake.clock += 10;
    stripeSubscription.status = 'canceled';
    const ended = structuredClone(stripeSubscription);
    await deliverAll([fake.event('customer.subscription.deleted', ended)]);
    expect(await subscriptionOf(call)).toMatchObject({
      plan: 'free',
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      limitsPlan: { id: 'free' },
    });
    expect((await currentPlan(t.database.db, accountId)).id).toBe('free');

    // An older update of that ended subscription, delivered late, does not revive it:
    // Stripe has it ended, and that is what is applied.
    const stale = { ...ended, status: 'active' };
    await deliverAll([fake.event('customer.subscription.updated', stale, { created: fake.clock })]);
    expect((await subscriptionOf(call)).plan).toBe('free');
  });

  it('cancels at once when asked', async () => {
    const { call, stripeSubscription } = await subscribed('price_1StarterY');
    const now = await call({
      method: 'POST',
      url: '/api/billing/cancel-subscription',
      payload: { immediate: true },
    });
    expect(now.statusCode).toBe(200);
    expect(fake.calls).toContain(`DELETE /v1/subscriptions/${stripeSubscription.id}`);
    expect(now.json().subscription).toMatchObject({ plan: 'free', limitsPlan: { id: 'free' } });
  });

  it('refuses unsigned, badly signed and tampered webhooks, changing nothing', async () => {
    const { call, stripeSubscription } = await subscribed('price_1ProM');
    const pastDue = fake.event(
      'customer.subscription.updated',
      { ...stripeSubscription, status: 'past_due' },
      { created: fake.clock + 100 },
    );
    const attempts = [
      await deliver(pastDue, ''),
      await deliver(pastDue, 't=1,v1=deadbeef'),
      await deliver(pastDue, fake.sign(pastDue, 'whsec_someone_else').signature),
      await deliver(pastDue, undefined, fake.sign(pastDue).payload.replace('past_due', 'active ')),
    ];
    for (const response of attempts) {
      expect(response.statusCode).toBe(400);
      expect(errorShapeProblem(response)).toBeNull();
      expect(response.json().error).toBe('Invalid webhook signature');
    }
    // A body that is not JSON at all is refused too.
    const junk = await t.app.inject({
      method: 'POST',
      url: '/api/billing/webhook',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(junk.statusCode).toBeGreaterThanOrEqual(400);
    expect(junk.statusCode).toBeLessThan(500);
    expect(await subscriptionOf(call)).toMatchObject({ plan: 'pro', status: 'active' });
    // The same event, properly signed, applies (Stripe has the subscription past due).
    stripeSubscription.status = 'past_due';
    expect((await deliver(pastDue)).statusCode).toBe(200);
    expect((await subscriptionOf(call)).status).toBe('past_due');
  });

  it('applies each event once, and each as Stripe has the subscription when it arrives', async () => {
    const { call, stripeSubscription } = await subscribed('price_1StarterM');
    const base = fake.clock + 1_000;
    const item = itemOf(stripeSubscription);
    // Stripe moves the subscription to Power User, then to Pro.
    item.price = { id: 'price_1TeamM', object: 'price' };
    const toTeam = fake.event('customer.subscription.updated', stripeSubscription, {
      created: base + 10,
    });
    item.price = { id: 'price_1ProM', object: 'price' };
    const toPro = fake.event('customer.subscription.updated', stripeSubscription, {
      created: base + 20,
    });
    // Newest first, then the older one arrives late: Pro, as Stripe has it, stays.
    expect((await deliver(toPro)).json()).toEqual({ received: true });
    expect((await deliver(toTeam)).json()).toEqual({ received: true });
    expect((await subscriptionOf(call)).plan).toBe('pro');

    // A replay of an event already applied is recognised and changes nothing.
    const replay = await deliver(toPro);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    // Two deliveries of one event at the same moment: one applies, one is the duplicate.
    const twice = fake.event('customer.subscription.updated', stripeSubscription, {
      created: base + 5,
    });
    const answers = await Promise.all([deliver(twice), deliver(twice)]);
    expect(answers.map((answer) => answer.json().duplicate ?? false).sort()).toEqual([false, true]);
    expect((await subscriptionOf(call)).plan).toBe('pro');

    const ids = await t.database.db
      .selectFrom('billing_events')
      .select('id')
      .where('id', 'in', [toPro.id, toTeam.id])
      .execute();
    expect(ids).toHaveLength(2);

    // A failed renewal (Stripe marks the subscription past due) lapses to free limits at once,
    // read on the invoice's event even before the subscription's own; paying restores the plan.
    const invoice = fake.createInvoice(stripeSubscription, 'open');
    stripeSubscription.status = 'past_due';
    await deliverAll([fake.event('invoice.payment_failed', invoice, { created: base + 30 })]);
    expect(await subscriptionOf(call)).toMatchObject({
      plan: 'pro',
      status: 'past_due',
      limitsPlan: { id: 'free' },
      features: { maxEntities: 1_000 },
    });
    const paid = { ...invoice, status: 'paid', amount_paid: 2000 };
    fake.invoices.set(invoice.id, paid);
    stripeSubscription.status = 'active';
    await deliverAll([fake.event('invoice.paid', paid, { created: base + 40 })]);
    // The failure, redelivered late, neither flips the invoice back nor the plan.
    await deliverAll([fake.event('invoice.payment_failed', invoice, { created: base + 35 })]);
    expect(await subscriptionOf(call)).toMatchObject({
      plan: 'pro',
      status: 'active',
      limitsPlan: { id: 'pro' },
    });
    const listed = invoiceList.parse(
      (await call({ method: 'GET', url: '/api/billing/invoices' })).json(),
    ).invoices;
    expect(listed.find((row) => row.id === invoice.id)?.status).toBe('paid');
  });

  it('adds, defaults and removes cards; attach and detach events in any order', async () => {
    const owner = await signUp(t.app);
    const call = as(t.app, owner.token);
    const intent = await call({ method: 'POST', url: '/api/billing/setup-intent', payload: {} });
    expect(intent.statusCode, intent.body).toBe(200);
    const { clientSecret, publishableKey } = setupIntent.parse(intent.json());
    expect(publishableKey).toBe('pk_test_engram');
    const created = [...fake.setupIntents.values()].find((i) => i.client_secret === clientSecret)!;
    const customer = created.customer as string;
    expect(
      fake.requests.find((r) => r.path === '/v1/setup_intents' && r.body.customer === customer)
        ?.body,
    ).toMatchObject({ allowed_payment_method_types: ['card'], usage: 'off_session' });

    // The browser confirms the card with Stripe; Stripe says so by webhook.
    const visa = fake.attachCard(customer, { brand: 'visa', last4: '4242' });
    const amex = fake.attachCard(customer, {
      brand: 'amex',
      last4: '0005',
      expMonth: 3,
      expYear: 2030,
    });
    await deliverAll([
      fake.event('payment_method.attached', visa),
      fake.event('payment_method.attached', amex),
    ]);
    const mirrored = await t.database.db
      .selectFrom('payment_methods')
      .select(['id', 'brand', 'last4'])
      .where('account_id', '=', await accountIdOf(t, owner.user.id))
      .orderBy('last4')
      .execute();
    expect(mirrored.map((row) => row.last4)).toEqual(['0005', '4242']);

    const setDefault = await call({
      method: 'POST',
      url: `/api/billing/payment-methods/${amex.id}/default`,
      payload: {},
    });
    expect(setDefault.statusCode, setDefault.body).toBe(200);
    expect(fake.requests.at(-1)).toMatchObject({
      path: `/v1/customers/${customer}`,
      body: { invoice_settings: { default_payment_method: amex.id } },
    });
    const listed = paymentMethodList.parse(
      (await call({ method: 'GET', url: '/api/billing/payment-methods' })).json(),
    ).paymentMethods;
    expect(listed.map((m) => [m.brand, m.last4, m.expMonth, m.expYear, m.isDefault])).toEqual([
      ['amex', '0005', 3, 2030, true],
      ['visa', '4242', 12, 2031, false],
    ]);

    const removed = await call({
      method: 'DELETE',
      url: `/api/billing/payment-methods/${visa.id}`,
    });
    expect(removed.statusCode).toBe(200);
    expect(fake.calls).toContain(`POST /v1/payment_methods/${visa.id}/detach`);
    // The attach event of the removed card arrives late: the card stays removed.
    await deliverAll([
      fake.event(
        'payment_method.detached',
        { ...visa, customer: null },
        {
          previousAttributes: { customer },
        },
      ),
      fake.event('payment_method.attached', visa),
    ]);
    const after = paymentMethodList.parse(
      (await call({ method: 'GET', url: '/api/billing/payment-methods' })).json(),
    ).paymentMethods;
    expect(after.map((m) => m.id)).toEqual([amex.id]);

    // Another account's card is not found.
    const other = as(t.app, (await signUp(t.app)).token);
    expect(
      (await other({ method: 'DELETE', url: `/api/billing/payment-methods/${amex.id}` }))
        .statusCode,
    ).toBe(404);
  });

  it('passes Stripe’s refusals on and answers 503 when Stripe cannot be reached', async () => {
    const { call, stripeSubscription } = await subscribed('price_1StarterM');
    fake.failNext(
      'POST',
      `/v1/subscriptions/${stripeSubscription.id}`,
      402,
      'Your card was declined.',
      'card_error',
    );
    const declined = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'pro', priceId: 'price_1ProM' },
    });
    expect(declined.statusCode).toBe(400);
    expect(declined.json().error).toBe('Your card was declined.');
    expect((await subscriptionOf(call)).plan).toBe('starter');

    // A server error is retried by the SDK (twice); past that the answer is a 503.
    fake.failNext('POST', '/v1/setup_intents', 500, 'boom', 'api_error', 3);
    const down = await call({ method: 'POST', url: '/api/billing/setup-intent', payload: {} });
    expect(down.statusCode).toBe(503);
    expect(errorShapeProblem(down)).toBeNull();
    expect(down.headers['retry-after']).toBeDefined();
    fake.failNext('POST', '/v1/setup_intents', 500, 'boom', 'api_error', 1);
    const retried = await call({ method: 'POST', url: '/api/billing/setup-intent', payload: {} });
    expect(retried.statusCode).toBe(200);
  });

  it('lets only the owner change billing', async () => {
    const { user } = await subscribed('price_1ProM');
    const member = await signUp(t.app);
    const accountId = await accountIdOf(t, user.id);
    await t.database.db
      .insertInto('account_members')
      .values({ account_id: accountId, user_id: member.user.id, role: 'member' })
      .execute();
    await t.database.db
      .updateTable('sessions')
      .set({ account_id: accountId })
      .where('user_id', '=', member.user.id)
      .execute();
    const asMember = as(t.app, member.token);
    const seen = fake.requests.length;
    for (const attempt of [
      { url: '/api/billing/cancel-subscription', payload: { immediate: true } },
      { url: '/api/billing/change-plan', payload: { planId: 'free', priceId: null } },
      { url: '/api/billing/setup-intent', payload: {} },
    ]) {
      const response = await asMember({ method: 'POST', ...attempt });
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toBe(BILLING_OWNER_ONLY);
    }
    expect(fake.requests.length).toBe(seen);
    expect((await subscriptionOf(asMember)).plan).toBe('pro');
  });
});
