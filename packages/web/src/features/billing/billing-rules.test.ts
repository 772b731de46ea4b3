import type { BillingPlan, Subscription } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import {
  billingDateLine,
  brandLabel,
  checkoutReturnUrls,
  chosenPlan,
  confirmLabel,
  formatLimit,
  formatUsd,
  initialPlanChoice,
  isMostPopular,
  isUpgrade,
  planChangedDescription,
  planChoiceHint,
  planChangeError,
  planChangeRoute,
  planChangesNotice,
  planDialogDescription,
  plansForCycle,
  statusLabel,
  statusTone,
  usageBreakdown,
} from './billing-rules';

const plan = (
  id: string,
  interval: BillingPlan['interval'],
  priceId: string | null,
): BillingPlan => ({
  id,
  name: id,
  price: priceId ? 1000 : 0,
  interval,
  priceId,
  popular: false,
  features: { maxEntities: 1, maxQueries: 1, maxApiKeys: 1, maxWebhooks: 0, features: [] },
});
const PLANS = [
  plan('free', null, null),
  plan('starter', 'month', 'p_s'),
  plan('starter-annual', 'year', 'p_sa'),
  plan('odd', 'month', null),
];
const sub = (overrides: Partial<Subscription>): Subscription => ({
  plan: 'free',
  name: 'Free',
  status: 'active',
  cancelAtPeriodEnd: false,
  currentPeriodEnd: null,
  features: { maxEntities: 1, maxQueries: 1, maxApiKeys: 1, maxWebhooks: 0, features: [] },
  limitsPlan: { id: 'free', name: 'Free' },
  scheduledChange: null,
  provider: 'none',
  planChanges: 'self',
  ...overrides,
});

describe('plan dialog rules', () => {
  it('shows Free and month plans monthly, year plans annually', () => {
    expect(plansForCycle(PLANS, 'monthly').map((p) => p.id)).toEqual(['free', 'starter', 'odd']);
    expect(plansForCycle(PLANS, 'annual').map((p) => p.id)).toEqual(['starter-annual']);
  });

  it('opens on the current plan, on the annual tab for an annual plan', () => {
    expect(initialPlanChoice(sub({ plan: 'starter-annual' }))).toEqual({
      cycle: 'annual',
      planId: 'starter-annual',
    });
    expect(initialPlanChoice(sub({ plan: 'free' }))).toEqual({ cycle: 'monthly', planId: 'free' });
    expect(initialPlanChoice(undefined)).toEqual({ cycle: 'monthly', planId: null });
  });

  it('chooses nothing when the chosen plan is not on the tab', () => {
    expect(chosenPlan(PLANS, 'annual', 'free')).toBeUndefined();
    expect(chosenPlan(PLANS, 'monthly', 'free')?.id).toBe('free');
  });

  it("says 'Downgrade' for a plan without a price id", () => {
    expect(confirmLabel(PLANS[0])).toBe('Downgrade');
    expect(confirmLabel(PLANS[3])).toBe('Downgrade');
    expect(confirmLabel(PLANS[1])).toBe('Change Plan');
    expect(confirmLabel(undefined)).toBe('Change Plan');
  });

  it('goes to free by change-plan, from free to paid by checkout, else change-plan', () => {
    expect(planChangeRoute(sub({ plan: 'starter' }), PLANS[0]!)).toBe('downgrade-to-free');
    expect(planChangeRoute(sub({ plan: 'free' }), PLANS[1]!)).toBe('checkout');
    expect(planChangeRoute(sub({ plan: 'starter' }), PLANS[2]!)).toBe('change-plan');
  });

  it('returns from the dialog’s checkout to the dashboard, or to billing when cancelled', () => {
    expect(checkoutReturnUrls('https://e.dev', 'pro-annual')).toEqual({
      successUrl: 'https://e.dev/dashboard?success=true&plan=pro-annual',
      cancelUrl: 'https://e.dev/billing?canceled=true&plan=pro-annual',
    });
  });
});

describe('plan change errors', () => {
  const error = (status: number, message?: string) =>
    new ApiError(
      status,
      message ? { error: message, code: 'FORBIDDEN' } : null,
      `status ${status}`,
    );
  it('prefers the server’s text, then the status fallback, then the thrown message', () => {
    expect(planChangeError(error(403, 'Nope'))).toBe('Nope');
    expect(planChangeError(error(403))).toBe(
      'Access denied. Only account owners can change billing plans.',
    );
    expect(planChangeError(error(404))).toBe('Account or plan not found.');
    expect(planChangeError(error(502))).toBe('Server error. Please try again later.');
    expect(planChangeError(error(400))).toBe('status 400');
    expect(planChangeError(new Error('boom'))).toBe('boom');
    expect(planChangeError('weird')).toBe('Failed to change plan');
  });
});

describe('who changes the plan', () => {
  const OPERATOR = 'Plan changes on this server are made by its operator.';
  it('says so plainly when the operator does, and what the owner can still do', () => {
    expect(planChangesNotice(sub({ planChanges: 'operator' }))).toBe(
      `${OPERATOR} Ask the person who runs it for another plan.`,
    );
    expect(planChangesNotice(sub({ planChanges: 'operator', plan: 'pro' }))).toBe(
      `${OPERATOR} Ask the person who runs it for another plan; you can still cancel or move to Free here.`,
    );
    expect(planDialogDescription(sub({ planChanges: 'operator' }))).toBe(
      `${OPERATOR} You can move to Free here; ask the person who runs it for any other plan.`,
    );
  });
  it('says changes apply at once without payments, and nothing when payments decide', () => {
    expect(planChangesNotice(sub({}))).toMatch(
      /nothing is charged\. Upgrades apply at once; downgrades at the end of the period\.$/,
    );
    expect(planChangesNotice(sub({ provider: 'stripe', planChanges: 'provider' }))).toBeNull();
    expect(planDialogDescription(sub({}))).toBe(
      'Upgrades apply at once; downgrades at the end of the current period, your plan staying until then.',
    );
    expect(planDialogDescription(sub({ provider: 'stripe', planChanges: 'provider' }))).toBe(
      'Upgrades apply at once; downgrades keep what you paid for until the period ends.',
    );
  });
});

describe('what confirming a plan would do', () => {
  // 2027-03-03T00:00:00Z
  const END = 1_804_032_000;
  const priced = (id: string, name: string, interval: BillingPlan['interval']) => ({
    ...plan(id, interval, `p_${id}`),
    name,
  });
  const pro = sub({ plan: 'pro', name: 'Pro', currentPeriodEnd: END });
  it('reads upgrades by tier, and monthly to annual on one tier', () => {
    expect(isUpgrade('starter', priced('pro', 'Pro', 'month'))).toBe(true);
    expect(isUpgrade('pro', priced('pro-annual', 'Pro', 'year'))).toBe(true);
    expect(isUpgrade('pro-annual', priced('pro', 'Pro', 'month'))).toBe(false);
    expect(isUpgrade('team', priced('starter-annual', 'Starter', 'year'))).toBe(false);
    expect(isUpgrade('free', priced('starter', 'Starter', 'month'))).toBe(true);
  });
  it('blocks the plan the person is on, unless that calls a scheduled change off', () => {
    expect(planChoiceHint(pro, undefined)).toBeNull();
    expect(planChoiceHint(pro, priced('pro', 'Pro', 'month'))).toEqual({
      text: 'You are on the Pro plan. Choose another plan to change.',
      blocked: true,
    });
    expect(planChoiceHint(sub({}), PLANS[0])).toMatchObject({ blocked: true });
    const scheduled = { ...pro, scheduledChange: { plan: 'starter', name: 'Starter', at: END } };
    expect(planChoiceHint(scheduled, priced('pro', 'Pro', 'month'))).toEqual({
      text: 'Keeps Pro: the move to Starter on March 3, 2027 is called off.',
      blocked: false,
    });
    expect(planChoiceHint(scheduled, priced('starter', 'Starter', 'month'))).toEqual({
      text: 'Already scheduled: Starter applies from March 3, 2027.',
      blocked: true,
    });
  });
  it('says an upgrade applies at once and a downgrade at the period end', () => {
    expect(planChoiceHint(pro, priced('team', 'Power User', 'month'))).toEqual({
      text: 'Power User applies at once.',
      blocked: false,
    });
    expect(planChoiceHint(sub({}), priced('starter', 'Starter', 'month'))?.text).toBe(
      'Starter applies at once.',
    );
    expect(planChoiceHint(pro, priced('starter', 'Starter', 'month'))?.text).toBe(
      'Pro stays until March 3, 2027; Starter applies from then.',
    );
    expect(planChoiceHint(pro, { ...PLANS[0]!, name: 'Free' })?.text).toBe(
      'Pro stays until March 3, 2027; Free applies from then.',
    );
  });
  it('says in the toast when the change applies', () => {
    expect(planChangedDescription(pro)).toBe('You are on the Pro plan.');
    expect(
      planChangedDescription({
        ...pro,
        scheduledChange: { plan: 'free', name: 'Free', at: END },
      }),
    ).toBe('Pro stays until March 3, 2027; Free applies from then.');
  });
});

describe('display', () => {
  it('formats limits, money, statuses and cards', () => {
    expect(formatLimit(-1)).toBe('Unlimited');
    expect(formatLimit(100000)).toBe('100,000');
    expect(formatUsd(2000)).toBe('$20.00');
    expect(formatUsd(1050)).toBe('$10.50');
    expect(statusTone('active')).toBe('active');
    expect(statusTone('trialing')).toBe('other');
    expect(statusLabel('past_due')).toBe('Past due');
    expect(brandLabel('amex')).toBe('American Express');
    expect(isMostPopular('pro')).toBe(true);
    expect(isMostPopular('pro-annual')).toBe(true);
    expect(isMostPopular('starter')).toBe(false);
  });

  it('shows the next billing date, or when the subscription ends', () => {
    const end = Date.UTC(2027, 2, 3) / 1000;
    expect(billingDateLine(sub({ currentPeriodEnd: end }))).toEqual({
      label: 'Next billing date',
      date: 'March 3, 2027',
    });
    expect(billingDateLine(sub({ currentPeriodEnd: end, cancelAtPeriodEnd: true }))?.label).toBe(
      'Subscription ends on',
    );
    expect(billingDateLine(sub({}))).toBeNull();
  });

  it('gives each kind of operation its share of the month', () => {
    const rows = usageBreakdown({
      totalRequests: 3,
      breakdown: { query: 1, create: 2 },
      details: [],
    });
    expect(rows.map((row) => [row.label, row.count, Math.round(row.percent * 10) / 10])).toEqual([
      ['Queries', 1, 33.3],
      ['Creates', 2, 66.7],
      ['Updates', 0, 0],
      ['Deletes', 0, 0],
      ['Total Operations', 3, 100],
    ]);
    expect(usageBreakdown({ totalRequests: 0, breakdown: {}, details: [] })[4]!.percent).toBe(0);
  });
});
