import { subscription, type Subscription } from '@engram/shared';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/*
 * GET /api/billing/subscription, read by several screens: Billing shows it
 * whole, Members and Webhooks the limits in force. One key and one fetcher,
 * so they share what was read and a plan changed on the billing screen shows
 * on the others. The key sits under the billing screen's ['billing'] prefix:
 * the subscription changes by billing acts, never by a graph event.
 */

export const subscriptionKey = ['billing', 'subscription'] as const;

/** The plan, its status and the limits in force (docs/product.md, Shapes). */
export function getSubscription(): Promise<Subscription> {
  return apiRequest('/api/billing/subscription', { schema: subscription });
}

/** Spread into useQuery, with a `select` for the part a screen shows. */
export function subscriptionQueryOptions() {
  return queryOptions({ queryKey: subscriptionKey, queryFn: getSubscription });
}
