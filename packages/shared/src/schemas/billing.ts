import { z } from 'zod';
import { idString, text } from './common.js';

/**
 * Billing wire shapes: subscription, plan, payment method, invoice and the
 * billing calls (docs/product.md, Calls and Shapes). Amounts are cents, dates
 * epoch seconds, -1 unlimited.
 */

/** Which payment provider the server runs: `none` (self-hosted, no payments) or `stripe`. */
export const billingProvider = z.enum(['none', 'stripe']);
export type BillingProvider = z.infer<typeof billingProvider>;

/**
 * Who changes the plan on this server: `self` (no payment provider, and
 * anyone may pick any plan: a server only its own machine reaches), `operator`
 * (no payment provider: the operator sets plans with `engram plan set`; an
 * owner may give a plan up but not take one), `provider` (payments decide:
 * Stripe).
 */
export const planChanges = z.enum(['self', 'operator', 'provider']);
export type PlanChanges = z.infer<typeof planChanges>;

/** A plan's limits and included features as the billing screen shows them. */
export const planFeatures = z.object({
  maxEntities: z.number().int(),
  maxQueries: z.number().int(),
  maxApiKeys: z.number().int(),
  maxWebhooks: z.number().int(),
  features: z.array(z.string()),
});
export type PlanFeaturesView = z.infer<typeof planFeatures>;

/** Subscription states (Stripe's, which the `none` provider uses a subset of). */
export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'unpaid',
  'canceled',
  'incomplete',
  'incomplete_expired',
  'paused',
] as const;

/** GET /api/billing/subscription. */
export const subscription = z.object({
  /** The subscribed plan's id; yearly plans end in '-annual'. */
  plan: z.string(),
  /** The subscribed plan's display name. */
  name: z.string(),
  /** 'active' shows green; anything else (past_due, canceled, …) orange. */
  status: z.string(),
  cancelAtPeriodEnd: z.boolean(),
  /** End of the paid period (epoch seconds); null on the free plan. */
  currentPeriodEnd: z.number().int().nullable(),
  /** The limits in force now: the plan's, or the free plan's when a paid plan lapsed or failed. */
  features: planFeatures,
  /** The plan whose limits are in force (differs from `plan` after a lapse, or until a downgrade takes effect). */
  limitsPlan: z.object({ id: z.string(), name: z.string() }),
  /**
   * A change that takes effect at the period end: a downgrade (upgrades
   * apply at once), or Free when set to cancel. Until `at` (epoch seconds)
   * `plan` and its limits stay; choosing `plan` again calls the change off.
   */
  scheduledChange: z
    .object({ plan: z.string(), name: z.string(), at: z.number().int() })
    .nullable()
    .default(null),
  provider: billingProvider,
  /** Who may change the plan (the billing screen says so). */
  planChanges,
});
export type Subscription = z.infer<typeof subscription>;

export const billingPlan = z.object({
  id: z.string(),
  name: z.string(),
  /** Cents per interval. */
  price: z.number().int(),
  interval: z.enum(['month', 'year']).nullable(),
  /** What checkout and change-plan take for this plan; null for the free plan. */
  priceId: z.string().nullable(),
  popular: z.boolean(),
  features: planFeatures,
});
export type BillingPlan = z.infer<typeof billingPlan>;

export const planList = z.object({ plans: z.array(billingPlan) });

export const paymentMethod = z.object({
  id: z.string(),
  brand: z.string(),
  last4: z.string(),
  expMonth: z.number().int(),
  expYear: z.number().int(),
  isDefault: z.boolean(),
});
export type PaymentMethod = z.infer<typeof paymentMethod>;

export const paymentMethodList = z.object({ paymentMethods: z.array(paymentMethod) });

export const invoice = z.object({
  id: z.string(),
  number: z.string().nullable(),
  /** Epoch seconds. */
  created: z.number().int(),
  /** Cents (USD). */
  amount: z.number().int(),
  /** 'paid' shows green; others orange. */
  status: z.string(),
  hostedInvoiceUrl: z.string().nullable(),
  invoicePdf: z.string().nullable(),
});
export type Invoice = z.infer<typeof invoice>;

export const invoiceList = z.object({ invoices: z.array(invoice) });

/** POST /api/billing/setup-intent: the secret the browser confirms the card with, and the key Stripe.js needs. */
export const setupIntent = z.object({
  clientSecret: z.string(),
  publishableKey: z.string(),
});
export type SetupIntent = z.infer<typeof setupIntent>;

/** POST /api/billing/change-plan: priceId null moves to the free plan (docs/product.md, States). */
export const changePlanInput = z.object({
  planId: idString,
  priceId: text().min(1).max(200).nullable(),
});
export type ChangePlanInput = z.infer<typeof changePlanInput>;

const returnUrl = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL' })
  .max(2000);

/** POST /api/billing/checkout: the hosted checkout page's return addresses are the caller's. */
export const checkoutInput = z.object({
  priceId: text().min(1, 'Price is required').max(200),
  successUrl: returnUrl,
  cancelUrl: returnUrl,
});
export type CheckoutInput = z.infer<typeof checkoutInput>;

export const checkoutSession = z.object({ url: z.string() });
export type CheckoutSession = z.infer<typeof checkoutSession>;

export const cancelSubscriptionInput = z
  .object({
    /** true ends the paid plan now; the web app sends false (at the period end: docs/product.md, States). */
    immediate: z.boolean().default(false),
  })
  .default({ immediate: false });

/** Answer of change-plan, cancel and reactivate: the subscription as it now stands. */
export const subscriptionChange = z.object({
  success: z.literal(true),
  subscription,
});
export type SubscriptionChange = z.infer<typeof subscriptionChange>;

/** The texts of billing refusals (docs/product.md, Calls). */
export const BILLING_OWNER_ONLY = 'Access denied. Only account owners can change billing plans.';
export const BILLING_NOT_FOUND = 'Account or plan not found.';
export const PAYMENTS_NOT_CONFIGURED = 'Payments are not configured on this server';
/** 403 to a self-service plan change on a server whose operator sets plans (docs/security.md). */
export const PLAN_CHANGES_BY_OPERATOR = 'Plan changes on this server are made by its operator.';
