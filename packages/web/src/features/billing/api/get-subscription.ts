import { useQuery } from '@tanstack/react-query';
import { subscriptionQueryOptions } from '@/lib/api/subscription';

/** GET /api/billing/subscription → the plan, its status and the limits in force (docs/product.md, Shapes). */
export function useSubscription() {
  return useQuery(subscriptionQueryOptions());
}
