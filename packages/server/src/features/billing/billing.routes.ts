import {
  cancelSubscriptionInput,
  changePlanInput,
  checkoutInput,
  checkoutSession,
  errorResponse,
  idParams,
  invoiceList,
  okResponse,
  paymentMethodList,
  planList,
  setupIntent,
  subscription,
  subscriptionChange,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../http/authenticate.js';
import { requireFullAccess } from '../../lib/space-access.js';
import type { RouteOptions } from '../feature.js';
import type { BillingService } from './billing.service.js';
import { errorResponses } from '../../http/error-responses.js';

const errors = errorResponses(
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'SERVICE_UNAVAILABLE',
);

/** Largest webhook body taken (Stripe's events are a few kilobytes). */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * Billing (docs/product.md, Calls). A person's own act: a session token only,
 * never an API key; changes only by the account's owner (403 otherwise).
 * Not metered — an account past its monthly operations can still upgrade.
 */
export const billingRoutes: FastifyPluginAsyncZod<RouteOptions<BillingService>> = async (
  app,
  options,
) => {
  await app.register(webhookRoute, options);
  await app.register(accountRoutes, options);
};

const accountRoutes: FastifyPluginAsyncZod<RouteOptions<BillingService>> = async (
  app,
  { services: billing, http },
) => {
  app.addHook('onRequest', http.authenticateSession);
  // The account's plan and cards are not a scoped credential's to see or change.
  app.addHook('onRequest', async (request) => requireFullAccess(authOf(request)));
  const schema = { tags: ['billing'], security: [{ bearerAuth: [] }] };

  app.get(
    '/api/billing/subscription',
    {
      schema: {
        ...schema,
        summary: "The account's plan, its status and the limits in force",
        response: { 200: subscription, ...errors },
      },
    },
    async (request) => billing.getSubscription(authOf(request)),
  );

  app.get(
    '/api/billing/plans',
    {
      schema: {
        ...schema,
        summary: 'Every plan with its price id (what checkout and change-plan take)',
        response: { 200: planList, ...errors },
      },
    },
    async () => ({ plans: billing.listPlans() }),
  );

  app.get(
    '/api/billing/payment-methods',
    {
      schema: {
        ...schema,
        summary: "The account's cards on file, the default first",
        response: { 200: paymentMethodList, ...errors },
      },
    },
    async (request) => ({
      paymentMethods: await billing.listPaymentMethods(authOf(request)),
    }),
  );

  app.post(
    '/api/billing/payment-methods/:id/default',
    {
      schema: {
        ...schema,
        summary: 'Make a card the default for future invoices (owners only)',
        params: idParams,
        response: { 200: okResponse, ...errors },
      },
    },
    async (request) => {
      await billing.setDefaultPaymentMethod(authOf(request), request.params.id);
      return { success: true as const };
    },
  );

  app.delete(
    '/api/billing/payment-methods/:id',
    {
      schema: {
        ...schema,
        summary: 'Remove a card (owners only)',
        params: idParams,
        response: { 200: okResponse, ...errors },
      },
    },
    async (request) => {
      await billing.removePaymentMethod(authOf(request), request.params.id);
      return { success: true as const };
    },
  );

  app.get(
    '/api/billing/invoices',
    {
      schema: {
        ...schema,
        summary: "The account's invoices, newest first (at most 100)",
        response: { 200: invoiceList, ...errors },
      },
    },
    async (request) => ({ invoices: await billing.listInvoices(authOf(request)) }),
  );

  app.post(
    '/api/billing/setup-intent',
    {
      schema: {
        ...schema,
        summary: 'Start adding a card: the secret the browser confirms it with (owners only)',
        description:
          "Answers 409 'Payments are not configured on this server' when no payment provider is set up.",
        body: z.object({}).optional(),
        response: { 200: setupIntent, ...errors },
      },
    },
    async (request) => billing.createSetupIntent(authOf(request)),
  );

  app.post(
    '/api/billing/change-plan',
    {
      schema: {
        ...schema,
        summary: 'Move to another plan; priceId null moves to Free (owners only)',
        description:
          'Upgrades apply now; a downgrade is scheduled for the period end (the plan in force and its limits stay until then, shown as `scheduledChange`), and Free cancels at the period end. Choosing the plan in force again calls a scheduled change off. With Stripe, upgrades are charged now and a first paid plan goes through checkout; without a payment provider nothing is charged.',
        body: changePlanInput,
        response: { 200: subscriptionChange, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      subscription: await billing.changePlan(authOf(request), request.body),
    }),
  );

  app.post(
    '/api/billing/checkout',
    {
      schema: {
        ...schema,
        summary: 'The hosted checkout page for a paid plan (owners only)',
        description:
          'Returns the address to send the browser to; it comes back to successUrl or cancelUrl. Without a payment provider nothing is paid: the plan is taken like change-plan takes it and the answer is successUrl.',
        body: checkoutInput,
        response: { 200: checkoutSession, ...errors },
      },
    },
    async (request) => billing.startCheckout(authOf(request), request.body),
  );

  app.post(
    '/api/billing/cancel-subscription',
    {
      schema: {
        ...schema,
        summary: 'Cancel at the end of the period, or now with immediate (owners only)',
        body: cancelSubscriptionInput.optional(),
        response: { 200: subscriptionChange, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      subscription: await billing.cancelSubscription(authOf(request), {
        immediate: request.body?.immediate ?? false,
      }),
    }),
  );

  app.post(
    '/api/billing/reactivate-subscription',
    {
      schema: {
        ...schema,
        summary: 'Keep a subscription that was set to cancel (owners only)',
        body: z.object({}).optional(),
        response: { 200: subscriptionChange, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      subscription: await billing.reactivateSubscription(authOf(request)),
    }),
  );
};

/**
 * The provider's webhook. Its signature covers the exact bytes sent, so this
 * one route takes its JSON body raw (a parser scoped to this plugin only);
 * every other route keeps the app's JSON parser.
 */
const webhookRoute: FastifyPluginAsyncZod<RouteOptions<BillingService>> = async (
  app,
  { services: billing },
) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );

  app.post(
    '/api/billing/webhook',
    {
      schema: {
        tags: ['billing'],
        summary: "The payment provider's events, verified by their signature over the raw body",
        response: {
          200: z.object({ received: z.literal(true), duplicate: z.literal(true).optional() }),
          400: errorResponse,
          409: errorResponse,
        },
      },
    },
    async (request) => {
      const signature = request.headers['stripe-signature'];
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return billing.handleStripeEvent(body, typeof signature === 'string' ? signature : undefined);
    },
  );
};
