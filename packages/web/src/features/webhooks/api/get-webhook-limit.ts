import { useQuery } from '@tanstack/react-query';
import { subscriptionQueryOptions } from '@/lib/api/subscription';

/**
 * The plan's number of webhook endpoints (-1 unlimited, 0 none), from GET
 * /api/billing/subscription: the limits in force now, as the billing screen
 * reads them. The query is the billing screen's, so a plan changed there is seen here.
 */
export function useWebhookLimit() {
  return useQuery({
    ...subscriptionQueryOptions(),
    select: (plan) => ({ limit: plan.features.maxWebhooks, planName: plan.limitsPlan.name }),
  });
}
