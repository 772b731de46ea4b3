import Stripe from 'stripe';
import type { Config } from '../../config.js';
import { AppError, badRequest, invalidInput, serviceUnavailable } from '../../lib/errors.js';
import type {
  BillingProvider,
  ProviderEvent,
  ProviderInvoice,
  ProviderPaymentMethods,
  ProviderSubscription,
  VerifiedEvent,
} from './billing-provider.js';

/** The config values a Stripe setup needs (config.ts requires them all with the secret key). */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  publishableKey: string;
  /** Catalog plan id → Stripe price id, for every paid plan and period. */
  prices: Record<string, string>;
  /** Another API address (tests: the local fake); Stripe's own when absent. */
  apiBase?: string | undefined;
}

export function stripeSettingsOf(config: Config): StripeSettings | undefined {
  if (!config.STRIPE_SECRET_KEY) return undefined;
  const required = (value: string | undefined, name: string) => {
    if (!value) throw new Error(`${name} is required when STRIPE_SECRET_KEY is set`);
    return value;
  };
  return {
    secretKey: config.STRIPE_SECRET_KEY,
    webhookSecret: required(config.STRIPE_WEBHOOK_SECRET, 'STRIPE_WEBHOOK_SECRET'),
    publishableKey: required(config.STRIPE_PUBLISHABLE_KEY, 'STRIPE_PUBLISHABLE_KEY'),
    prices: {
      starter: required(config.STRIPE_PRICE_STARTER_MONTHLY, 'STRIPE_PRICE_STARTER_MONTHLY'),
      'starter-annual': required(config.STRIPE_PRICE_STARTER_ANNUAL, 'STRIPE_PRICE_STARTER_ANNUAL'),
      pro: required(config.STRIPE_PRICE_PRO_MONTHLY, 'STRIPE_PRICE_PRO_MONTHLY'),
      'pro-annual': required(config.STRIPE_PRICE_PRO_ANNUAL, 'STRIPE_PRICE_PRO_ANNUAL'),
      team: required(config.STRIPE_PRICE_TEAM_MONTHLY, 'STRIPE_PRICE_TEAM_MONTHLY'),
      'team-annual': required(config.STRIPE_PRICE_TEAM_ANNUAL, 'STRIPE_PRICE_TEAM_ANNUAL'),
    },
    apiBase: config.STRIPE_API_BASE,
  };
}

/** Where the SDK sends requests: Stripe's API, or another address given as a URL. */
function addressOf(apiBase: string | undefined): Partial<Stripe.StripeConfig> {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
  };
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

/**
 * Turns the SDK's failures into answers people can act on: a declined or
 * refused request keeps Stripe's own message (400); an outage is a 503.
 */
function providerError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (
    error instanceof Stripe.errors.StripeCardError ||
    error instanceof Stripe.errors.StripeInvalidRequestError
  ) {
    return invalidInput(error.message);
  }
  return serviceUnavailable(
    'The payment provider could not be reached. Nothing was changed; try again.',
    5,
  );
}

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw providerError(error);
  }
}

/** Stripe through its official SDK. */
export function createStripeProvider(settings: StripeSettings): BillingProvider {
  const stripe = new Stripe(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...addressOf(settings.apiBase),
  });
  const planOfPrice = new Map(
    Object.entries(settings.prices).map(([planId, priceId]) => [priceId, planId]),
  );

  function subscriptionOf(subscription: Stripe.Subscription): ProviderSubscription {
    const item = subscription.items.data[0];
    const priceId = item?.price.id;
    const legacyPeriodEnd = (subscription as unknown as { current_period_end?: number })
      .current_period_end;
    return {
      id: subscription.id,
      customerId: idOf(subscription.customer) ?? '',
      planId: priceId ? (planOfPrice.get(priceId) ?? null) : null,
      status: subscription.status,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      currentPeriodEnd: item?.current_period_end ?? legacyPeriodEnd ?? null,
      accountId: subscription.metadata?.accountId ?? null,
    };
  }

  function invoiceOf(invoice: Stripe.Invoice): ProviderInvoice {
    const legacySubscription = (invoice as unknown as { subscription?: string | { id: string } })
      .subscription;
    return {
      id: invoice.id ?? '',
      customerId: idOf(invoice.customer as string | { id: string } | null),
      subscriptionId:
        idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(legacySubscription),
      number: invoice.number,
      created: invoice.created,
      amount: invoice.status === 'paid' ? invoice.amount_paid : invoice.amount_due,
      currency: invoice.currency,
      status: invoice.status ?? 'draft',
      hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
      invoicePdf: invoice.invoice_pdf ?? null,
    };
  }

  function eventOf(event: Stripe.Event): ProviderEvent {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        if (session.mode !== 'subscription') return { kind: 'ignored' };
        return {
          kind: 'checkout-completed',
          accountId: session.client_reference_id ?? session.metadata?.accountId ?? null,
          customerId: idOf(session.customer),
          subscriptionId: idOf(session.subscription),
        };
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed':
        return { kind: 'subscription', subscription: subscriptionOf(event.data.object) };
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed':
      case 'invoice.finalized':
      case 'invoice.updated':
      case 'invoice.voided':
      case 'invoice.marked_uncollectible':
        return { kind: 'invoice', invoice: invoiceOf(event.data.object) };
      case 'payment_method.attached':
      case 'payment_method.updated':
      case 'payment_method.automatically_updated':
        return {
          kind: 'payment-methods',
          customerId: idOf(event.data.object.customer),
          paymentMethodId: event.data.object.id,
        };
      case 'payment_method.detached': {
        const before = event.data.previous_attributes as { customer?: string } | undefined;
        return {
          kind: 'payment-methods',
          customerId: before?.customer ?? null,
          paymentMethodId: event.data.object.id,
        };
      }
      case 'customer.updated':
        return { kind: 'payment-methods', customerId: event.data.object.id, paymentMethodId: null };
      default:
        return { kind: 'ignored' };
    }
  }

  return {
    kind: 'stripe',
    renewsPeriods: true,
    priceIdOf: (planId) => settings.prices[planId] ?? null,

    createCustomer: ({ accountId, email, name }) =>
      call(async () => {
        const customer = await stripe.customers.create(
          { email, name, metadata: { accountId } },
          // One customer per account even when two requests race: Stripe answers the second with the first.
          { idempotencyKey: `engram-customer-${accountId}` },
        );
        return customer.id;
      }),

    createSetupIntent: (customerId) =>
      call(async () => {
        const intent = await stripe.setupIntents.create({
          customer: customerId,
          allowed_payment_method_types: ['card'],
          usage: 'off_session',
        });
        if (!intent.client_secret)
          throw new Error('Stripe returned a setup intent without a secret');
        return { clientSecret: intent.client_secret, publishableKey: settings.publishableKey };
      }),

    createCheckout: (request) =>
      call(async () => {
        const session = await stripe.checkout.sessions.create({
          mode: 'subscription',
          customer: request.customerId,
          client_reference_id: request.accountId,
          line_items: [{ price: request.priceId, quantity: 1 }],
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
          metadata: { accountId: request.accountId },
          subscription_data: { metadata: { accountId: request.accountId } },
        });
        if (!session.url) throw new Error('Stripe returned a checkout session without a url');
        return session.url;
      }),

    getSubscription: (id) =>
      call(async () => subscriptionOf(await stripe.subscriptions.retrieve(id))),

    listSubscriptions: (customerId) =>
      call(async () => {
        // Newest first; 'all' includes ended ones (an account's may have just ended).
        const page = await stripe.subscriptions.list({
          customer: customerId,
          status: 'all',
          limit: 100,
        });
        return page.data.map(subscriptionOf);
      }),

    changePrice: (id, priceId, upgrade) =>
      call(async () => {
        const current = await stripe.subscriptions.retrieve(id);
        const item = current.items.data[0];
        if (!item) throw new Error('Stripe subscription has no item');
        const updated = await stripe.subscriptions.update(id, {
          items: [{ id: item.id, price: priceId }],
          cancel_at_period_end: false,
          // Upgrades are charged now and refused if the card is; downgrades
          // start at the next period (the higher plan was paid for until then).
          proration_behavior: upgrade ? 'always_invoice' : 'none',
          payment_behavior: upgrade ? 'error_if_incomplete' : 'allow_incomplete',
        });
        return subscriptionOf(updated);
      }),

    setCancelAtPeriodEnd: (id, cancel) =>
      call(async () =>
        subscriptionOf(await stripe.subscriptions.update(id, { cancel_at_period_end: cancel })),
      ),

    cancelNow: (id) => call(async () => subscriptionOf(await stripe.subscriptions.cancel(id))),

    listPaymentMethods: (customerId) =>
      call(async (): Promise<ProviderPaymentMethods> => {
        const [customer, cards] = await Promise.all([
          stripe.customers.retrieve(customerId),
          stripe.paymentMethods.list({ customer: customerId, type: 'card', limit: 100 }),
        ]);
        const defaultId =
          'deleted' in customer && customer.deleted
            ? null
            : idOf((customer as Stripe.Customer).invoice_settings?.default_payment_method);
        return {
          defaultId,
          methods: cards.data.flatMap((method) =>
            method.card
              ? [
                  {
                    id: method.id,
                    brand: method.card.brand,
                    last4: method.card.last4,
                    expMonth: method.card.exp_month,
                    expYear: method.card.exp_year,
                  },
                ]
              : [],
          ),
        };
      }),

    setDefaultPaymentMethod: (customerId, paymentMethodId) =>
      call(async () => {
        await stripe.customers.update(customerId, {
          invoice_settings: { default_payment_method: paymentMethodId },
        });
      }),

    detachPaymentMethod: (paymentMethodId) =>
      call(async () => {
        await stripe.paymentMethods.detach(paymentMethodId);
      }),

    verifyWebhook(rawBody, signature): VerifiedEvent {
      if (!signature) throw invalidSignature();
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
      } catch {
        throw invalidSignature();
      }
      return { id: event.id, type: event.type, created: event.created, event: eventOf(event) };
    },
  };
}

const invalidSignature = () => badRequest('headers.stripe-signature', 'Invalid webhook signature');
