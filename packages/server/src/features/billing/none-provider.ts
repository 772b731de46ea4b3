import { PAYMENTS_NOT_CONFIGURED, planById } from '@engram/shared';
import { conflict } from '../../lib/errors.js';
import type { BillingProvider } from './billing-provider.js';

export const paymentsNotConfigured = () => conflict(PAYMENTS_NOT_CONFIGURED);

/**
 * The self-hosted default: no payment provider. Plans are moved by the
 * billing service directly, timed as with a provider (upgrades at once,
 * downgrades at the end of the plan's period); there are no cards,
 * invoices or webhooks, and anything that would need a provider answers
 * 'Payments are not configured on this server'. Paid plans are named by the
 * catalog's own price ids (the pricing and sign-up pages use them too).
 */
export function createNoneProvider(): BillingProvider {
  const refuse = async (): Promise<never> => {
    throw paymentsNotConfigured();
  };
  return {
    kind: 'none',
    renewsPeriods: false,
    priceIdOf: (planId) => planById(planId).priceId,
    createCustomer: refuse,
    createSetupIntent: refuse,
    createCheckout: refuse,
    getSubscription: refuse,
    listSubscriptions: refuse,
    changePrice: refuse,
    setCancelAtPeriodEnd: refuse,
    cancelNow: refuse,
    listPaymentMethods: async () => ({ methods: [], defaultId: null }),
    setDefaultPaymentMethod: refuse,
    detachPaymentMethod: refuse,
    verifyWebhook: () => {
      throw paymentsNotConfigured();
    },
  };
}
