import {
  createSpaceInput,
  listSpacesQuery,
  okResponse,
  space,
  spaceList,
  updateSpaceInput,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../http/authenticate.js';
import type { RouteOptions } from '../feature.js';
import type { SpacesService } from './spaces.service.js';
import { resourceErrors } from '../../http/error-responses.js';

const spaceParams = z.object({ space: z.string().min(1).max(200) });

/**
 * `/api/spaces`: the account's memory spaces. Like settings, managing them is
 * not metered: an operation is a read or change of a graph (docs/product.md,
 * Plans), and the web app's switcher reads the list on every screen.
 */
export const spacesRoutes: FastifyPluginAsyncZod<RouteOptions<SpacesService>> = async (
  app,
  { services: spaces, http },
) => {
  app.addHook('onRequest', http.authenticate);
  const schema = { tags: ['spaces'], security: [{ bearerAuth: [] }] };

  app.get(
    '/api/spaces',
    {
      schema: {
        ...schema,
        summary: "The account's memory spaces, by slug",
        description:
          'One page (`limit`, default 100) in slug order; pass `nextCursor` as `cursor` for the next, null when nothing follows. `query` keeps the spaces whose slug or name starts with it. A key limited to some spaces sees only those.',
        querystring: listSpacesQuery,
        response: { 200: spaceList, ...resourceErrors },
      },
    },
    async (request) => spaces.listSpaces(authOf(request), request.query),
  );

  app.post(
    '/api/spaces',
    {
      schema: {
        ...schema,
        summary: 'Create a memory space',
        description:
          'The slug is derived from the name (with -2, -3… when taken) unless given; it never changes. The number of spaces is limited by the plan.',
        body: createSpaceInput,
        response: { 201: space, ...resourceErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await spaces.createSpace(authOf(request), request.body)),
  );

  app.get(
    '/api/spaces/:space',
    {
      schema: {
        ...schema,
        summary: 'One memory space, by slug or id, with its counts',
        params: spaceParams,
        response: { 200: space, ...resourceErrors },
      },
    },
    async (request) => spaces.getSpace(authOf(request), request.params.space),
  );

  app.patch(
    '/api/spaces/:space',
    {
      schema: {
        ...schema,
        summary: 'Rename a memory space (its slug stays)',
        params: spaceParams,
        body: updateSpaceInput,
        response: { 200: space, ...resourceErrors },
      },
    },
    async (request) => spaces.renameSpace(authOf(request), request.params.space, request.body.name),
  );

  app.delete(
    '/api/spaces/:space',
    {
      schema: {
        ...schema,
        summary: 'Delete a memory space and everything in it',
        description:
          "The account owner's signed-in session only. The space is gone at once; its rows are removed in the background. The default space cannot be deleted.",
        params: spaceParams,
        response: { 200: okResponse, ...resourceErrors },
      },
    },
    async (request) => {
      await spaces.deleteSpace(authOf(request), request.params.space);
      return { success: true as const };
    },
  );
};
