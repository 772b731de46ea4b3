import {
  createdWebhook,
  createWebhookInput,
  listDeliveriesQuery,
  rotatedWebhookSecret,
  updateWebhookInput,
  webhook,
  webhookDelivery,
  webhookDeliveryList,
  webhookList,
  WEBHOOK_EVENT_TYPES,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../http/authenticate.js';
import type { RouteOptions } from '../feature.js';
import type { WebhooksService } from './webhooks.service.js';
import { errorResponses, resourceErrors } from '../../http/error-responses.js';

const errors = { ...resourceErrors, ...errorResponses('RATE_LIMITED') };

const webhookParams = z.object({ id: z.string().min(1).max(200) });
const deliveryParams = webhookParams.extend({ deliveryId: z.string().min(1).max(200) });

/**
 * `/api/webhooks`: the account's endpoints (docs/webhooks.md). Account
 * settings, like keys: a credential with full access only, and not metered.
 */
export const webhooksRoutes: FastifyPluginAsyncZod<RouteOptions<WebhooksService>> = async (
  app,
  { services: webhooks, http },
) => {
  app.addHook('onRequest', http.authenticate);
  const schema = { tags: ['webhooks'], security: [{ bearerAuth: [] }] };

  app.get(
    '/api/webhooks',
    {
      schema: {
        ...schema,
        summary: "The account's webhook endpoints",
        response: { 200: webhookList, ...errors },
      },
    },
    async (request) => webhooks.listWebhooks(authOf(request)),
  );

  app.post(
    '/api/webhooks',
    {
      schema: {
        ...schema,
        summary: 'Add a webhook endpoint',
        description: `An https URL (never a private, loopback or link-local address) that hears \`events\` — any of ${WEBHOOK_EVENT_TYPES.join(', ')}, or \`*\` for every one — in one \`space\` (its slug) or, without it, in every space, from now on. The answer holds the signing secret, shown this once. The number of endpoints is limited by the plan (none on Free: 402).`,
        body: createWebhookInput,
        response: { 201: createdWebhook, ...errors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await webhooks.createWebhook(authOf(request), request.body)),
  );

  app.get(
    '/api/webhooks/:id',
    {
      schema: {
        ...schema,
        summary: 'One webhook endpoint',
        params: webhookParams,
        response: { 200: webhook, ...errors },
      },
    },
    async (request) => webhooks.getWebhook(authOf(request), request.params.id),
  );

  app.patch(
    '/api/webhooks/:id',
    {
      schema: {
        ...schema,
        summary: 'Change, disable or enable a webhook endpoint',
        description:
          'Disabled, an endpoint hears nothing. Enabled again, it resumes after the last event it was sent, or from the oldest event still kept when the change log was compacted past that meanwhile.',
        params: webhookParams,
        body: updateWebhookInput,
        response: { 200: webhook, ...errors },
      },
    },
    async (request) => webhooks.updateWebhook(authOf(request), request.params.id, request.body),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      schema: {
        ...schema,
        summary: 'Delete a webhook endpoint and its deliveries log',
        params: webhookParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await webhooks.deleteWebhook(authOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/webhooks/:id/test',
    {
      schema: {
        ...schema,
        summary: 'Send a test event ("ping") now',
        description: 'Sent at once, enabled or not, and answered with how it went; not retried.',
        params: webhookParams,
        response: { 200: webhookDelivery, ...errors },
      },
    },
    async (request) => webhooks.testWebhook(authOf(request), request.params.id),
  );

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      schema: {
        ...schema,
        summary: 'Replace the signing secret',
        description:
          'The answer holds the new secret, shown this once. For 24 hours the previous secret signs too, as a second v1 in Engram-Signature.',
        params: webhookParams,
        response: { 200: rotatedWebhookSecret, ...errors },
      },
    },
    async (request) => webhooks.rotateSecret(authOf(request), request.params.id),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        ...schema,
        summary: "An endpoint's deliveries, newest first",
        description:
          'One page (`limit`, default 25); pass `nextCursor` as `cursor` for the next, null when nothing follows. Successful deliveries are kept for 7 days, the others for 30.',
        params: webhookParams,
        querystring: listDeliveriesQuery,
        response: { 200: webhookDeliveryList, ...errors },
      },
    },
    async (request) => webhooks.listDeliveries(authOf(request), request.params.id, request.query),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        ...schema,
        summary: 'Send a delivery’s event again now',
        description:
          'A new delivery with the same event id, sent at once outside the endpoint’s order. 409 once the event is past the change log’s retention.',
        params: deliveryParams,
        response: { 200: webhookDelivery, ...errors },
      },
    },
    async (request) =>
      webhooks.redeliver(authOf(request), request.params.id, request.params.deliveryId),
  );
};
