import { planSelfService } from '../../config.js';
import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import { billingRoutes } from './billing.routes.js';
import { billingProviderFor } from './provider-from-config.js';
import { createBillingService } from './billing.service.js';

export type { BillingService } from './billing.service.js';
export { billingContentSources } from './provider-from-config.js';

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
