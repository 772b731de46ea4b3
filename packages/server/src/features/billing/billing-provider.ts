import type { BillingProvider as ProviderKind } from '@engram/shared';

/**
 * What billing needs of a payment provider. Two implementations, chosen by
 * config (provider-from-config.ts): `none` (none-provider.ts, the default: no
 * payments) and `stripe` (stripe-provider.ts). The rules — who may change
 * what, when a change applies (upgrades now, downgrades at the period end),
 * applying webhook events — live in subscriptions.service.ts and
 * stripe-events.service.ts (the plan in force: entitlements) and are the same
 * for both.
 */
export interface BillingProvider {
  readonly kind: ProviderKind;
  /**
   * Whether the provider renews periods and reports their ends. Without one
   * (`none`) the period still counts, and the next simply starts when one ends.
   */
  readonly renewsPeriods: boolean;
  /** What checkout and change-plan take for a plan; null when it cannot be bought (free). */
  priceIdOf(planId: string): string | null;

  /** A customer for the account at the provider (created once per account). */
  createCustomer(input: { accountId: string; email: string; name: string }): Promise<string>;
  /** A card setup the browser confirms with the provider's own form. */
  createSetupIntent(customerId: string): Promise<{ clientSecret: string; publishableKey: string }>;
  /** A hosted checkout page for a first paid plan; its address. */
  createCheckout(input: CheckoutRequest): Promise<string>;
  getSubscription(subscriptionId: string): Promise<ProviderSubscription>;
  /**
   * The customer's subscriptions as the provider has them now, newest first,
   * ended ones included: what every subscription event is applied from, so
   * the order events arrive in does not matter.
   */
  listSubscriptions(customerId: string): Promise<ProviderSubscription[]>;
  /** Moves the subscription to another price; `upgrade` charges the difference now. */
  changePrice(
    subscriptionId: string,
    priceId: string,
    upgrade: boolean,
  ): Promise<ProviderSubscription>;
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<ProviderSubscription>;
  cancelNow(subscriptionId: string): Promise<ProviderSubscription>;
  /** The customer's cards as the provider has them now. */
  listPaymentMethods(customerId: string): Promise<ProviderPaymentMethods>;
  setDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>;
  detachPaymentMethod(paymentMethodId: string): Promise<void>;
  /** Checks a webhook's signature over the raw body; throws an AppError (400) when it does not hold. */
  verifyWebhook(rawBody: Buffer, signature: string | undefined): VerifiedEvent;
}

export interface CheckoutRequest {
  accountId: string;
  customerId: string;
  priceId: string;
  successUrl: string;
  cancelUrl: string;
}

/** A subscription as the provider reports it, with its price resolved to a catalog plan. */
export interface ProviderSubscription {
  id: string;
  customerId: string;
  /** Catalog plan of the subscription's price; null for a price this server does not know. */
  planId: string | null;
  status: string;
  cancelAtPeriodEnd: boolean;
  /** Epoch seconds. */
  currentPeriodEnd: number | null;
  /** The account id the subscription was started for (metadata), if any. */
  accountId: string | null;
}

export interface ProviderPaymentMethod {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface ProviderPaymentMethods {
  methods: ProviderPaymentMethod[];
  defaultId: string | null;
}

export interface ProviderInvoice {
  id: string;
  customerId: string | null;
  subscriptionId: string | null;
  number: string | null;
  /** Epoch seconds. */
  created: number;
  /** Cents. */
  amount: number;
  currency: string;
  status: string;
  hostedInvoiceUrl: string | null;
  invoicePdf: string | null;
}

/** A webhook event reduced to what billing acts on. */
export type ProviderEvent =
  | {
      kind: 'checkout-completed';
      accountId: string | null;
      customerId: string | null;
      subscriptionId: string | null;
    }
  | { kind: 'subscription'; subscription: ProviderSubscription }
  | { kind: 'invoice'; invoice: ProviderInvoice }
  | { kind: 'payment-methods'; customerId: string | null; paymentMethodId: string | null }
  | { kind: 'ignored' };

export interface VerifiedEvent {
  id: string;
  type: string;
  /** When the provider created the event (epoch seconds): orders deliveries of one invoice. */
  created: number;
  event: ProviderEvent;
}
