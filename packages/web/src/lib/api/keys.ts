import { subscriptionKey } from '@/lib/api/subscription';
import { liveQueryKeys } from '@/lib/realtime';

/*
 * The query keys of the screens whose data no graph event changes. Each set
 * sits under its own prefix, apart from the live keys (lib/realtime), and is
 * refreshed by its screen's own acts. The account is not in the keys:
 * switching account empties the whole cache (lib/account).
 */

/**
 * The billing screen. Plans, the subscription, cards and invoices change only
 * by billing acts: they sit under `['billing']`. Usage sits under the live
 * `['analytics']` prefix, refreshed by every graph event.
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

/** The Members screen: members and invitations change by its own acts. */
export const memberKeys = {
  all: ['members'] as const,
  list: ['members', 'list'] as const,
};

/**
 * The Webhooks screen: endpoints and their deliveries change by its own acts
 * and by the server's sends (never by a graph event the realtime feed names).
 */
export const webhookKeys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  deliveries: (webhookId: string) => ['webhooks', 'deliveries', webhookId] as const,
};
