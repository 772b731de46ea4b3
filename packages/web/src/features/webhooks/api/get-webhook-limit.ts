import { subscription } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * The plan's number of webhook endpoints (-1 unlimited, 0 none), from GET
 * /api/billing/subscription: the limits in force now, as the billing screen
 * reads them. The key is the billing screen's, so a plan changed there is seen here.
 */
export function useWebhookLimit() {
  return useQuery({
    queryKey: ['billing', 'subscription'],
    queryFn: () => apiRequest('/api/billing/subscription', { schema: subscription }),
    select: (plan) => ({ limit: plan.features.maxWebhooks, planName: plan.limitsPlan.name }),
  });
}
