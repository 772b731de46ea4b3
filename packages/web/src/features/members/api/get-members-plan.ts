import { useQuery } from '@tanstack/react-query';
import { subscriptionQueryOptions } from '@/lib/api/subscription';

/**
 * The name of the plan whose limits apply, from GET /api/billing/subscription
 * (for the note on a plan for one person). The query is the billing screen's,
 * so a plan changed there is seen here.
 */
export function useMembersPlanName(enabled: boolean) {
  return useQuery({
    ...subscriptionQueryOptions(),
    select: (plan) => plan.limitsPlan.name,
    enabled,
  });
}
