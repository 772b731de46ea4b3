import { bindService } from '../feature.js';
import {
  cancelForDeletion,
  cancelSubscription,
  changePlan,
  getSubscription,
  listInvoices,
  listPlans,
  reactivateSubscription,
  setPlanByOperator,
  startCheckout,
  type BillingDeps,
} from './subscriptions.service.js';
import {
  createSetupIntent,
  listPaymentMethods,
  removePaymentMethod,
  setDefaultPaymentMethod,
} from './payment-methods.service.js';
import { handleStripeEvent } from './stripe-events.service.js';

/** Billing as its routes, the CLI and account deletion call it: subscriptions, cards and the provider's webhook. */
export function createBillingService(deps: BillingDeps) {
  return {
    /** Tells entitlements an account's subscription changed (the webhook and every change here call it). */
    planChanged: deps.planChanged,
    ...bindService(deps, {
      getSubscription,
      listPlans,
      listInvoices,
      changePlan,
      startCheckout,
      cancelSubscription,
      reactivateSubscription,
      setPlanByOperator,
      cancelForDeletion,
      listPaymentMethods,
      createSetupIntent,
      setDefaultPaymentMethod,
      removePaymentMethod,
      handleStripeEvent,
    }),
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
