import type { Config } from '../../config.js';
import { createNoneProvider } from './none-provider.js';
import type { BillingProvider } from './billing-provider.js';

/**
 * Stripe when STRIPE_SECRET_KEY is set (with the rest of its settings), else
 * `none`. Stripe's SDK is loaded only then: a server without it never holds
 * the SDK's few megabytes.
 */
export async function billingProviderFor(config: Config): Promise<BillingProvider> {
  if (!config.STRIPE_SECRET_KEY) return createNoneProvider();
  const { createStripeProvider, stripeSettingsOf } = await import('./stripe-provider.js');
  return createStripeProvider(stripeSettingsOf(config)!);
}

/** Sources the browser needs for Stripe's card form (Stripe.js and its frames), when Stripe is on. */
export function billingContentSources(config: Config): {
  scripts: string[];
  frames: string[];
  connect: string[];
} {
  if (!config.STRIPE_SECRET_KEY) return { scripts: [], frames: [], connect: [] };
  return {
    scripts: ['https://js.stripe.com'],
    frames: ['https://js.stripe.com', 'https://hooks.stripe.com'],
    connect: ['https://api.stripe.com'],
  };
}
