import {
  apiKeyList,
  createApiKeyInput,
  createdApiKey,
  idParams,
  okResponse,
  rolledApiKey,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authOf } from '../../http/authenticate.js';
import type { RouteOptions } from '../feature.js';
import type { KeysService } from './keys.service.js';
import { resourceErrors } from '../../http/error-responses.js';

export const keysRoutes: FastifyPluginAsyncZod<RouteOptions<KeysService>> = async (
  app,
  { services: keys, http },
) => {
  // Managing keys is a person's act: a session token only, never an API key
  // (and the service refuses any credential short of full access).
  app.addHook('onRequest', http.authenticateSession);
  const schema = { tags: ['api keys'], security: [{ bearerAuth: [] }] };

  app.get(
    '/api/keys',
    {
      config: { operation: { type: 'query', resource: 'api_key' } },
      schema: {
        ...schema,
        summary: "The account's API keys (never the full keys)",
        response: { 200: apiKeyList, ...resourceErrors },
      },
    },
    async (request) => ({ apiKeys: await keys.listKeys(authOf(request)) }),
  );

  app.post(
    '/api/keys',
    {
      config: { operation: { type: 'create', resource: 'api_key' } },
      schema: {
        ...schema,
        summary: 'Create an API key; the full key is in this answer only',
        body: createApiKeyInput,
        response: { 201: createdApiKey, ...resourceErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await keys.createKey(authOf(request), request.body)),
  );

  app.post(
    '/api/keys/:id/roll',
    {
      config: { operation: { type: 'update', resource: 'api_key' } },
      schema: {
        ...schema,
        summary: 'Replace a key: the new one works at once, the old one for 14 more days',
        params: idParams,
        response: { 200: rolledApiKey, ...resourceErrors },
      },
    },
    async (request) => keys.rollKey(authOf(request), request.params.id),
  );

  app.delete(
    '/api/keys/:id',
    {
      config: { operation: { type: 'delete', resource: 'api_key' } },
      schema: {
        ...schema,
        summary: 'Delete a key; it is refused at once',
        params: idParams,
        response: { 200: okResponse, ...resourceErrors },
      },
    },
    async (request) => {
      await keys.deleteKey(authOf(request), request.params.id);
      return { success: true as const };
    },
  );
};
