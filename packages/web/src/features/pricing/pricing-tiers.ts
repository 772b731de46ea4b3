import type { Plan } from '@engram/shared';
import { PLAN_TIERS, planFor, type BillingCycle } from '@/lib/plans';

/** One line under each plan's name. */
const TAGLINES: Record<string, string> = {
  free: 'For trying Engram with a single agent',
  starter: 'For developers shipping their first agents',
  pro: 'For production agents and growing teams',
  team: 'For heavy workloads across many agents',
};

/** What the free plan lacks (docs/product.md, Numbers), listed under its features. */
const EXCLUSIONS: Record<string, string[]> = {
  free: ['Webhooks', 'Real-time sync', 'Custom integrations'],
};

export interface PricingTier {
  tierId: string;
  plan: Plan;
  tagline: string;
  excluded: string[];
}

/** The four plan cards for a billing cycle, in catalog order. */
export function pricingTiers(cycle: BillingCycle): PricingTier[] {
  return PLAN_TIERS.flatMap((tierId) => {
    const plan = planFor(tierId, cycle);
    if (!plan) return [];
    return [{ tierId, plan, tagline: TAGLINES[tierId] ?? '', excluded: EXCLUSIONS[tierId] ?? [] }];
  });
}

/** Free goes straight to sign-up; paid plans carry the choice along (docs/product.md, Public pages). */
export function signupLink(tier: PricingTier, cycle: BillingCycle): string {
  if (tier.plan.priceId === null) return '/signup';
  return `/signup?${new URLSearchParams({ plan: tier.tierId, billing: cycle }).toString()}`;
}
