import { subscription } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * The name of the plan whose limits apply, from GET /api/billing/subscription
 * (for the note on a plan for one person). The key is the billing screen's,
 * so a plan changed there is seen here.
 */
export function useMembersPlanName(enabled: boolean) {
  return useQuery({
    queryKey: ['billing', 'subscription'],
    queryFn: () => apiRequest('/api/billing/subscription', { schema: subscription }),
    select: (plan) => plan.limitsPlan.name,
    enabled,
  });
}
