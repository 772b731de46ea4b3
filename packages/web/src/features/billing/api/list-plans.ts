import { planList, type BillingPlan } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/** GET /api/billing/plans → plans (docs/product.md, Calls), each with the price id the server takes for it. */
export async function listPlans(): Promise<BillingPlan[]> {
  return (await apiRequest('/api/billing/plans', { schema: planList })).plans;
}

export function plansQueryOptions() {
  return queryOptions({ queryKey: billingKeys.plans, queryFn: listPlans, staleTime: 5 * 60_000 });
}

export function usePlans() {
  return useQuery(plansQueryOptions());
}
