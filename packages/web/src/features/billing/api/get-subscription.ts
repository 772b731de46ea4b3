import { subscription, type Subscription } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from './keys';

/** GET /api/billing/subscription → the plan, its status and the limits in force (docs/product.md, Shapes). */
export function getSubscription(): Promise<Subscription> {
  return apiRequest('/api/billing/subscription', { schema: subscription });
}

export function subscriptionQueryOptions() {
  return queryOptions({ queryKey: billingKeys.subscription, queryFn: getSubscription });
}

export function useSubscription() {
  return useQuery(subscriptionQueryOptions());
}
