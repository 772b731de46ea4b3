import type { PaymentMethod, SetupIntent } from '@engram/shared';
import type { AuthContext } from '../../lib/auth-context.js';
import { notFound } from '../../lib/errors.js';
import * as repo from './billing.repository.js';
import {
  ensureCustomer,
  requireOwner,
  subscriptionRow,
  type BillingDeps,
} from './subscriptions.service.js';
import { paymentsNotConfigured } from './none-provider.js';

/**
 * The account's cards: listed from the provider (kept in a mirror), added
 * through the provider's setup, made default or removed by the owner.
 */

function paymentMethodOf(row: repo.PaymentMethodRow): PaymentMethod {
  return {
    id: row.id,
    brand: row.brand,
    last4: row.last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    isDefault: row.is_default,
  };
}

/**
 * The account's cards. With a provider, its list is read and the mirror
 * brought up to date first (a card added a moment ago shows even before its
 * webhook arrives); if the provider cannot be reached, the mirror answers.
 */
export async function listPaymentMethods(
  deps: BillingDeps,
  auth: AuthContext,
): Promise<PaymentMethod[]> {
  const row = await subscriptionRow(deps, auth.accountId);
  if (row.provider_customer_id && deps.provider.kind !== 'none') {
    try {
      const live = await deps.provider.listPaymentMethods(row.provider_customer_id);
      await repo.replacePaymentMethods(
        deps.db,
        auth.accountId,
        live.methods.map(methodRow),
        live.defaultId,
      );
    } catch (error) {
      deps.onError?.(error, 'payment methods could not be read from the provider');
    }
  }
  return (await repo.listPaymentMethods(deps.db, auth.accountId)).map(paymentMethodOf);
}

export const methodRow = (method: {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}) => ({
  id: method.id,
  brand: method.brand,
  last4: method.last4,
  exp_month: method.expMonth,
  exp_year: method.expYear,
});

export async function createSetupIntent(
  deps: BillingDeps,
  auth: AuthContext,
): Promise<SetupIntent> {
  requireOwner(auth);
  if (deps.provider.kind === 'none') throw paymentsNotConfigured();
  const row = await subscriptionRow(deps, auth.accountId);
  return deps.provider.createSetupIntent(await ensureCustomer(deps, auth, row));
}

async function ownPaymentMethod(
  deps: BillingDeps,
  auth: AuthContext,
  paymentMethodId: string,
): Promise<string> {
  requireOwner(auth);
  const row = await subscriptionRow(deps, auth.accountId);
  const customerId = row.provider_customer_id;
  if (!customerId || !(await repo.hasPaymentMethod(deps.db, auth.accountId, paymentMethodId))) {
    throw notFound('Payment method');
  }
  return customerId;
}

export async function setDefaultPaymentMethod(
  deps: BillingDeps,
  auth: AuthContext,
  paymentMethodId: string,
): Promise<void> {
  const customerId = await ownPaymentMethod(deps, auth, paymentMethodId);
  await deps.provider.setDefaultPaymentMethod(customerId, paymentMethodId);
  await repo.markDefaultPaymentMethod(deps.db, auth.accountId, paymentMethodId);
}

export async function removePaymentMethod(
  deps: BillingDeps,
  auth: AuthContext,
  paymentMethodId: string,
): Promise<void> {
  await ownPaymentMethod(deps, auth, paymentMethodId);
  await deps.provider.detachPaymentMethod(paymentMethodId);
  await repo.deletePaymentMethod(deps.db, auth.accountId, paymentMethodId);
}
