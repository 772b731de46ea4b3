import { subscriptionKey } from '@/lib/api/subscription';
import { liveQueryKeys } from '@/lib/realtime';

/**
 * Query keys of the billing screen. Plans, the subscription, cards and
 * invoices change only by billing acts (not graph events): they sit under
 * `['billing']`, refreshed by this screen's own changes. Usage sits under the
 * live `['analytics']` prefix, refreshed by every graph event.
 */
export const billingKeys = {
  all: ['billing'] as const,
  /** Shared with the screens that read the plan's limits (lib/api/subscription.ts). */
  subscription: subscriptionKey,
  plans: ['billing', 'plans'] as const,
  paymentMethods: ['billing', 'payment-methods'] as const,
  invoices: ['billing', 'invoices'] as const,
  monthlyUsage: [...liveQueryKeys.analytics, 'billing', 'monthly-summary'] as const,
  todayUsage: [...liveQueryKeys.analytics, 'stats', 'real-time'] as const,
};
