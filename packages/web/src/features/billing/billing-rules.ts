import {
  BILLING_NOT_FOUND,
  BILLING_OWNER_ONLY,
  PLAN_CHANGES_BY_OPERATOR,
  tierOf,
  tierRank,
  UNLIMITED,
  type BillingPlan,
  type MonthlySummary,
  type Subscription,
} from '@engram/shared';
import { ApiError } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import type { BillingCycle } from '@/lib/plans';

/**
 * The billing screen's rules (docs/product.md: The signed-in app, States, Failures),
 * kept apart from the components so each can be tested on its own.
 */

export const FREE_PLAN = 'free';

/** The Free plan shows only on the monthly tab; the yearly tab shows year plans (docs/product.md, States). */
export function plansForCycle(plans: BillingPlan[], cycle: BillingCycle): BillingPlan[] {
  return plans.filter((plan) =>
    cycle === 'annual'
      ? plan.interval === 'year'
      : plan.interval === 'month' || plan.interval === null,
  );
}

/** The plan dialog opens on the current plan, on the annual tab when that plan is annual. */
export function initialPlanChoice(subscription: Subscription | undefined): {
  cycle: BillingCycle;
  planId: string | null;
} {
  if (!subscription) return { cycle: 'monthly', planId: null };
  return {
    cycle: subscription.plan.endsWith('-annual') ? 'annual' : 'monthly',
    planId: subscription.plan,
  };
}

/** The chosen plan if it is shown on the tab in view; nothing is chosen otherwise. */
export function chosenPlan(
  plans: BillingPlan[],
  cycle: BillingCycle,
  planId: string | null,
): BillingPlan | undefined {
  return plansForCycle(plans, cycle).find((plan) => plan.id === planId);
}

/** 'Downgrade' when the chosen plan has no price id, else 'Change Plan' (docs/product.md, States). */
export function confirmLabel(plan: BillingPlan | undefined): 'Downgrade' | 'Change Plan' {
  return plan && plan.priceId === null ? 'Downgrade' : 'Change Plan';
}

/**
 * How a chosen plan is reached (docs/product.md, States): no price → change-plan to free;
 * from free to a paid plan → hosted checkout; between paid plans → change-plan.
 */
export function planChangeRoute(
  subscription: Subscription,
  plan: BillingPlan,
): 'downgrade-to-free' | 'checkout' | 'change-plan' {
  if (plan.priceId === null) return 'downgrade-to-free';
  if (subscription.plan === FREE_PLAN) return 'checkout';
  return 'change-plan';
}

/**
 * Who changes the plan here, in words, when it is not the payments: on a
 * server without a provider, each owner at once, or the operator alone
 * (the server tells which: `planChanges`). Null with a payment provider.
 */
export function planChangesNotice(subscription: Subscription): string | null {
  switch (subscription.planChanges) {
    case 'self':
      return 'This server runs without a payment provider: no card is needed and nothing is charged. Upgrades apply at once; downgrades at the end of the period.';
    case 'operator':
      return subscription.plan === FREE_PLAN
        ? `${PLAN_CHANGES_BY_OPERATOR} Ask the person who runs it for another plan.`
        : `${PLAN_CHANGES_BY_OPERATOR} Ask the person who runs it for another plan; you can still cancel or move to Free here.`;
    case 'provider':
      return null;
  }
}

/** The plan dialog's subtitle: how a change applies, or who makes it. */
export function planDialogDescription(subscription: Subscription): string {
  switch (subscription.planChanges) {
    case 'operator':
      return `${PLAN_CHANGES_BY_OPERATOR} You can move to Free here; ask the person who runs it for any other plan.`;
    case 'self':
      return 'Upgrades apply at once; downgrades at the end of the current period, your plan staying until then.';
    case 'provider':
      return 'Upgrades apply at once; downgrades keep what you paid for until the period ends.';
  }
}

/** Up a tier, or from monthly to annual on the same tier (the server's reading too). */
export function isUpgrade(fromPlanId: string, to: BillingPlan): boolean {
  const from = tierRank(fromPlanId);
  const rank = tierRank(to.id);
  return (
    rank > from || (rank === from && to.interval === 'year' && !fromPlanId.endsWith('-annual'))
  );
}

/**
 * What confirming the chosen plan would do, said under the plans (null with
 * nothing chosen). `blocked`: choosing the plan the person is on changes
 * nothing, unless it calls a scheduled change off.
 */
export function planChoiceHint(
  subscription: Subscription,
  plan: BillingPlan | undefined,
): { text: string; blocked: boolean } | null {
  if (!plan) return null;
  const scheduled = subscription.scheduledChange;
  if (plan.id === subscription.plan) {
    return scheduled
      ? {
          text: `Keeps ${subscription.name}: the move to ${scheduled.name} on ${formatBillingDate(scheduled.at)} is called off.`,
          blocked: false,
        }
      : { text: `You are on the ${plan.name} plan. Choose another plan to change.`, blocked: true };
  }
  if (scheduled?.plan === plan.id) {
    return {
      text: `Already scheduled: ${plan.name} applies from ${formatBillingDate(scheduled.at)}.`,
      blocked: true,
    };
  }
  const end = subscription.currentPeriodEnd;
  if (subscription.plan === FREE_PLAN || isUpgrade(subscription.plan, plan) || end === null) {
    return { text: `${plan.name} applies at once.`, blocked: false };
  }
  return {
    text: `${subscription.name} stays until ${formatBillingDate(end)}; ${plan.name} applies from then.`,
    blocked: false,
  };
}

/** The success toast's second line: when the change applies. */
export function planChangedDescription(changed: Subscription): string {
  const scheduled = changed.scheduledChange;
  if (!scheduled) return `You are on the ${changed.name} plan.`;
  return `${changed.name} stays until ${formatBillingDate(scheduled.at)}; ${scheduled.name} applies from then.`;
}

/** The plan dialog's checkout returns to the dashboard, or to billing when cancelled (docs/product.md, States). */
export function checkoutReturnUrls(origin: string, planId: string) {
  const plan = encodeURIComponent(planId);
  return {
    successUrl: `${origin}/dashboard?success=true&plan=${plan}`,
    cancelUrl: `${origin}/billing?canceled=true&plan=${plan}`,
  };
}

/**
 * A failed plan change (docs/product.md, Failures): the server's error text if present, else
 * the thrown message, else 'Failed to change plan'; a status without a text
 * gets its intended fallback (403, 404, 5xx).
 */
export function planChangeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.body?.error) return error.body.error;
    if (error.status === 403) return BILLING_OWNER_ONLY;
    if (error.status === 404) return BILLING_NOT_FOUND;
    if (error.status >= 500) return 'Server error. Please try again later.';
  }
  if (error instanceof Error && error.message) return error.message;
  return 'Failed to change plan';
}

/** An error's text for a toast: the server's if it gave one, else `fallback`. */
export function serverMessage(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.body?.error ? error.body.error : fallback;
}

/** -1 is Unlimited (docs/product.md, The signed-in app; Numbers). */
export function formatLimit(value: number): string {
  return value === UNLIMITED ? 'Unlimited' : value.toLocaleString('en-US');
}

/** The pro tier carries the 'Most Popular' badge on the current plan card (docs/product.md, The signed-in app). */
export function isMostPopular(planId: string): boolean {
  return tierOf(planId) === 'pro';
}

/** 'active' is green; every other status orange (docs/product.md, The signed-in app). */
export function statusTone(status: string): 'active' | 'other' {
  return status === 'active' ? 'active' : 'other';
}

/** 'past_due' → 'Past due'. */
export function statusLabel(status: string): string {
  const words = status.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const dateFormat = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
});

/** Epoch seconds → 'March 3, 2027' (docs/product.md, Numbers: billing dates are epoch seconds). */
export function formatBillingDate(epochSeconds: number): string {
  return dateFormat.format(new Date(epochSeconds * 1000));
}

/** Epoch seconds → 'Mar 3, 2027', the app's date (lib/format). */
export function formatShortDate(epochSeconds: number): string {
  return formatDate(new Date(epochSeconds * 1000).toISOString());
}

/** 'Next billing date' or, when set to cancel, 'Subscription ends on' (docs/product.md, The signed-in app); nothing on free. */
export function billingDateLine(
  subscription: Subscription,
): { label: 'Next billing date' | 'Subscription ends on'; date: string } | null {
  if (subscription.currentPeriodEnd === null) return null;
  return {
    label: subscription.cancelAtPeriodEnd ? 'Subscription ends on' : 'Next billing date',
    date: formatBillingDate(subscription.currentPeriodEnd),
  };
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Cents → '$20.00' (docs/product.md, Numbers: amounts are cents, shown as USD). */
export function formatUsd(cents: number): string {
  return usd.format(cents / 100);
}

/** 'visa' → 'Visa', 'amex' → 'American Express'. */
export function brandLabel(brand: string): string {
  const known: Record<string, string> = {
    visa: 'Visa',
    mastercard: 'Mastercard',
    amex: 'American Express',
    discover: 'Discover',
    diners: 'Diners Club',
    jcb: 'JCB',
    unionpay: 'UnionPay',
  };
  return known[brand.toLowerCase()] ?? statusLabel(brand);
}

/** '3/2030' → '03/2030'. */
export function formatExpiry(month: number, year: number): string {
  return `${String(month).padStart(2, '0')}/${year}`;
}

export interface UsageRow {
  key: 'queries' | 'creates' | 'updates' | 'deletes' | 'total';
  label: string;
  count: number;
  /** Of the month's total, 0–100 (0 when there were none). */
  percent: number;
}

/**
 * The usage card: queries, creates, updates, deletes and total
 * operations, each with its percent of the total.
 */
export function usageBreakdown(summary: MonthlySummary): UsageRow[] {
  const total = summary.totalRequests;
  const of = (count: number) => (total > 0 ? (count / total) * 100 : 0);
  const count = (kind: string) => summary.breakdown[kind] ?? 0;
  const rows: UsageRow[] = [
    { key: 'queries', label: 'Queries', count: count('query'), percent: 0 },
    { key: 'creates', label: 'Creates', count: count('create'), percent: 0 },
    { key: 'updates', label: 'Updates', count: count('update'), percent: 0 },
    { key: 'deletes', label: 'Deletes', count: count('delete'), percent: 0 },
    { key: 'total', label: 'Total Operations', count: total, percent: 0 },
  ];
  return rows.map((row) => ({ ...row, percent: of(row.count) }));
}

/** '33.3%'; whole numbers without decimals. */
export function formatPercent(percent: number): string {
  return `${Number.isInteger(percent) ? percent : percent.toFixed(1)}%`;
}

/** The usage detail list shows at most 5 items (docs/product.md, Numbers). */
export const USAGE_DETAILS_MAX = 5;

export const EMPTY_MONTHLY_SUMMARY: MonthlySummary = {
  totalRequests: 0,
  breakdown: {},
  details: [],
};
