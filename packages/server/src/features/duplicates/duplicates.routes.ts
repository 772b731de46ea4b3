import {
  duplicateList,
  duplicateListQuery,
  duplicatePairInput,
  mergeInput,
  mergeResult,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, resourceErrors } from '../../http/error-responses.js';
import { spaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import type { DuplicatesService } from './duplicates.service.js';

const errors = errorResponses(
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
);
const mergeErrors = { ...resourceErrors, ...errorResponses('RATE_LIMITED') };

/**
 * `/api/duplicates`: the space's likely duplicate entities, and saying a pair
 * is not one thing. In the space the request names, like the graph's routes
 * (X-Engram-Space or `?space=`; none: `default`); the list is a read, a
 * dismissal a write (a viewer or read-only key: 403).
 */
export const duplicatesRoutes: FastifyPluginAsyncZod<RouteOptions<DuplicatesService>> = async (
  app,
  { services: duplicates, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveSpace);
  const schema = { tags: ['duplicates'], security: [{ bearerAuth: [] }] };

  app.get(
    '/api/duplicates',
    {
      config: { operation: { type: 'query', resource: 'entity' } },
      schema: {
        ...schema,
        summary: 'Pairs of entities that are probably the same thing, best first',
        description:
          'Each candidate holds exactly two entities, a `score` between 0 and 1 and the `reasons` behind it; its `id` is the same for the pair whichever way round. One page (`limit`, default 20, at most 100); pass `nextCursor` as `cursor` for the next, null when nothing follows. Pairs are found in the background from the change log; a read that finds recent changes to up to 2,500 entities (an import, say) not yet compared waits up to 3 s for them, and `upToDate` is false when some are still being compared then. Dismissed pairs are left out until one of the two entities is renamed.',
        querystring: duplicateListQuery,
        response: { 200: duplicateList, ...errors },
      },
    },
    async (request) => duplicates.listDuplicates(spaceAuthOf(request), request.query),
  );

  app.post(
    '/api/duplicates/dismiss',
    {
      config: { operation: { type: 'update', resource: 'entity' } },
      schema: {
        ...schema,
        summary: 'Say two entities are not the same thing',
        description:
          'The pair (`entityIds`, either way round) is not proposed again until one of the two is renamed. 404 unless both are entities of the space.',
        body: duplicatePairInput,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await duplicates.dismissDuplicate(spaceAuthOf(request), request.body.entityIds);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/duplicates/undismiss',
    {
      config: { operation: { type: 'update', resource: 'entity' } },
      schema: {
        ...schema,
        summary: 'Take back a dismissal: the pair may be proposed again',
        description:
          '404 unless both are entities of the space; a pair never dismissed is no error.',
        body: duplicatePairInput,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await duplicates.undismissDuplicate(spaceAuthOf(request), request.body.entityIds);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/entities/merge',
    {
      config: { operation: { type: 'update', resource: 'entity' } },
      schema: {
        ...schema,
        tags: ['entities'],
        summary: 'Merge entities into one',
        description:
          "In one call: the sources' observations move to the target (texts equal but for case, spacing and end punctuation are kept once, the earliest), their relations are re-pointed to it (a relation that would join the target to itself, or repeat one it has, is dropped), their metadata fills the keys the target lacks, their names become its aliases, and they are removed. `name` and `type` rename and retype the target (its old name becomes an alias). At most 20 sources, all in the space (404 otherwise); 402 when the target would pass the plan's observations per entity; 409 when `name` is another entity's. One `entity_merged` event; `POST /api/changes/{callSeq}/revert` undoes it exactly.",
        body: mergeInput,
        response: { 200: mergeResult, ...mergeErrors },
      },
    },
    async (request) => duplicates.mergeEntities(spaceAuthOf(request), request.body),
  );
};
