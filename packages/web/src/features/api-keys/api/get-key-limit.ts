import { useQuery } from '@tanstack/react-query';
import { subscriptionQueryOptions } from '@/lib/api/subscription';

/**
 * The plan's number of API keys (-1 unlimited), from GET
 * /api/billing/subscription: the limits in force, as the billing screen reads
 * them; a plan changed there is seen here.
 */
export function useKeyLimit({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    ...subscriptionQueryOptions(),
    enabled,
    select: (plan) => ({ limit: plan.features.maxApiKeys, planName: plan.limitsPlan.name }),
  });
}
