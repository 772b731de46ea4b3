import { subscription } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentPlan } from '../features/entitlements/entitlements.service.js';
import { StripeFake } from '../test/fakes/stripe.js';
import { accountIdOf, as, createTestApp, signUp, type TestApp } from '../test/harness.js';

/**
 * Issue 31, finding 8: subscription webhooks were ordered by the provider's
 * timestamps, which are whole seconds, so two events of one second could
 * apply in the wrong order. Now every event applies the subscription as
 * the provider has it when the event arrives (read again through the SDK,
 * here from the local Stripe stand-in), and a read that began before one
 * already applied changes nothing.
 */

const WEBHOOK_SECRET = 'whsec_test_order';
const ORIGIN = 'http://engram.test';

let fake: StripeFake;
let t: TestApp;

beforeAll(async () => {
  fake = await StripeFake.start({ webhookSecret: WEBHOOK_SECRET });
  t = await createTestApp({
    STRIPE_SECRET_KEY: 'sk_test_order',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_order',
    STRIPE_API_BASE: fake.baseUrl,
    PUBLIC_URL: ORIGIN,
    STRIPE_PRICE_STARTER_MONTHLY: 'price_o_starter_m',
    STRIPE_PRICE_STARTER_ANNUAL: 'price_o_starter_y',
    STRIPE_PRICE_PRO_MONTHLY: 'price_o_pro_m',
    STRIPE_PRICE_PRO_ANNUAL: 'price_o_pro_y',
    STRIPE_PRICE_TEAM_MONTHLY: 'price_o_team_m',
    STRIPE_PRICE_TEAM_ANNUAL: 'price_o_team_y',
  });
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

type Event = ReturnType<StripeFake['event']>;
type StripeObject = Parameters<StripeFake['event']>[1];

function deliver(event: Event) {
  const { payload, signature } = fake.sign(event);
  return t.app.inject({
    method: 'POST',
    url: '/api/billing/webhook',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    payload,
  });
}

async function delivered(event: Event) {
  const response = await deliver(event);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({ received: true });
}

/** A new owner paying for Starter through checkout, its events delivered. */
async function subscribed() {
  const owner = await signUp(t.app);
  const call = as(t.app, owner.token);
  const response = await call({
    method: 'POST',
    url: '/api/billing/checkout',
    payload: {
      priceId: 'price_o_starter_m',
      successUrl: `${ORIGIN}/dashboard?success=true&plan=starter`,
      cancelUrl: `${ORIGIN}/billing?canceled=true&plan=starter`,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const sessionId = new URL(response.json().url).pathname.split('/').pop()!;
  for (const event of fake.completeCheckout(sessionId)) await delivered(event);
  const stripeSubscription = fake.subscriptions.get(
    fake.sessions.get(sessionId)!.subscription as string,
  )!;
  const accountId = await accountIdOf(t, owner.user.id);
  return { call, accountId, stripeSubscription };
}

async function planOf(call: ReturnType<typeof as>) {
  const response = await call({ method: 'GET', url: '/api/billing/subscription' });
  return subscription.parse(response.json());
}

/** Stripe changes the subscription's price; the event it sends, stamped `created`. */
function changePrice(sub: StripeObject, price: string, created: number): Event {
  const item = (sub.items as { data: Record<string, unknown>[] }).data[0]!;
  item.price = { id: price, object: 'price' };
  return fake.event('customer.subscription.updated', sub, { created });
}

describe('subscription events in any order', () => {
  it('two changes in the same second, delivered newest first, leave the newest', async () => {
    const { call, accountId, stripeSubscription } = await subscribed();
    const second = fake.clock + 100;
    const toPro = changePrice(stripeSubscription, 'price_o_pro_m', second);
    const toTeam = changePrice(stripeSubscription, 'price_o_team_m', second);

    await delivered(toTeam);
    await delivered(toPro);
    expect(await planOf(call)).toMatchObject({ plan: 'team', limitsPlan: { id: 'team' } });
    expect((await currentPlan(t.database.db, accountId)).id).toBe('team');
  });

  it('a cancellation and its undoing in the same second, delivered reversed, leave it renewing', async () => {
    const { call, stripeSubscription } = await subscribed();
    const second = fake.clock + 200;
    stripeSubscription.cancel_at_period_end = true;
    const cancelled = fake.event('customer.subscription.updated', stripeSubscription, {
      created: second,
    });
    stripeSubscription.cancel_at_period_end = false;
    const kept = fake.event('customer.subscription.updated', stripeSubscription, {
      created: second,
    });

    await delivered(kept);
    await delivered(cancelled);
    expect(await planOf(call)).toMatchObject({ plan: 'starter', cancelAtPeriodEnd: false });
  });

  it('a slow read that began first does not undo a newer one applied meanwhile', async () => {
    const { call, accountId, stripeSubscription } = await subscribed();
    const second = fake.clock + 300;
    const toPro = changePrice(stripeSubscription, 'price_o_pro_m', second);
    // The first delivery reads Stripe while it says Pro; its answer comes back late.
    const slow = fake.holdNext('GET', '/v1/subscriptions');
    let answered = false;
    const first = deliver(toPro).then((response) => {
      answered = true;
      return response;
    });
    await Promise.race([slow.reached, first]);
    expect(answered, 'applied without reading the subscription from Stripe').toBe(false);
    // Meanwhile Stripe moves to Power User, and that event is read and applied.
    const toTeam = changePrice(stripeSubscription, 'price_o_team_m', second);
    await delivered(toTeam);
    expect((await planOf(call)).plan).toBe('team');

    slow.release();
    expect((await first).statusCode).toBe(200);
    expect(await planOf(call)).toMatchObject({ plan: 'team', limitsPlan: { id: 'team' } });
    expect((await currentPlan(t.database.db, accountId)).id).toBe('team');
  });
});
