import { planSelfService } from '../../config.js';
import type { Entitlements } from '../entitlements/entitlements.service.js';
import { defineFeature } from '../feature.js';
import { billingRoutes } from './billing.routes.js';
import { billingProviderFor } from './providers.js';
import { createBillingService } from './services.js';

export type { BillingService } from './services.js';
export { billingContentSources } from './providers.js';

/** Plans and payments behind one provider (`none` by default, Stripe when configured). */
export const billingFeature = defineFeature({
  name: 'billing',
  create: async ({ config, db, now, onError }, { entitlements }: { entitlements: Entitlements }) =>
    createBillingService({
      db,
      now,
      provider: await billingProviderFor(config),
      planSelfService: planSelfService(config),
      publicOrigin: config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : undefined,
      onError,
      planChanged: (accountId) => entitlements.forget(accountId),
    }),
  routes: billingRoutes,
});
