import { PLANS, tierOf, type Plan } from '@engram/shared';

export type BillingCycle = 'monthly' | 'annual';

export function parseBillingCycle(value: string | null): BillingCycle {
  return value === 'annual' ? 'annual' : 'monthly';
}

/** Tier ids in catalog order: free, starter, pro, team. */
export const PLAN_TIERS: string[] = PLANS.filter((plan) => tierOf(plan.id) === plan.id).map(
  (plan) => plan.id,
);

/**
 * The catalog plan for a tier billed monthly or annually ('pro' + annual →
 * 'pro-annual'). The free tier has a single plan that serves both cycles.
 */
export function planFor(tierId: string, cycle: BillingCycle): Plan | undefined {
  const tier = tierOf(tierId);
  const exact = PLANS.find((plan) => plan.id === (cycle === 'annual' ? `${tier}-annual` : tier));
  return exact ?? PLANS.find((plan) => plan.id === tier && plan.priceId === null);
}

/** What the plan costs per month, in cents; annual plans spread over 12 months. */
export function monthlyEquivalentCents(plan: Plan): number {
  return plan.interval === 'year' ? plan.price / 12 : plan.price;
}
