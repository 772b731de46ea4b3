import type { Plan } from '@engram/shared';
import { parseBillingCycle, planFor, type BillingCycle } from '@/lib/plans';

export interface SelectedPlan {
  /** The tier as it appears in the query, e.g. 'pro'. */
  tierId: string;
  billing: BillingCycle;
  plan: Plan;
  /** The checkout price of that plan; a selection always has one. */
  priceId: string;
}

/**
 * The paid plan chosen on the pricing page (/signup?plan=pro&billing=annual),
 * or null for no plan, the free plan or an unknown one: those sign up without billing.
 */
export function selectedPaidPlan(search: URLSearchParams): SelectedPlan | null {
  const tierId = search.get('plan');
  if (!tierId) return null;
  const billing = parseBillingCycle(search.get('billing'));
  const plan = planFor(tierId, billing);
  if (!plan?.priceId) return null;
  return { tierId, billing, plan, priceId: plan.priceId };
}
