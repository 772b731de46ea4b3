import {
  addObservationsInput,
  deleteResult,
  entity,
  createdEntity,
  entityInput,
  entityUpdateInput,
  idParams,
  observation,
  relation,
  relationInput,
  relationUpdateInput,
  typeList,
  typeListQuery,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { spaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import type { GraphService } from './graph.service.js';
// A viewer's or a read-only key's write is 403 (lib/space-access.ts).
import { resourceErrors as errors } from '../../http/error-responses.js';

const TYPE_LIST_DESCRIPTION =
  'One page of types (`limit`, default 100, at most the read limit), most common first, then by name. `nextCursor` is passed as `cursor` for the next page; null when nothing follows. `prefix` keeps the types that start with it, in any case.';

/**
 * REST adapters over the graph service: validate, call, shape. The reads
 * that take `asOf` are the reads feature's routes; an entity's delete is
 * history's (it purges too).
 */
export const graphRoutes: FastifyPluginAsyncZod<RouteOptions<GraphService>> = async (
  app,
  { services: graph, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveSpace);
  const security = [{ bearerAuth: [] }];
  const entities = { tags: ['entities'], security };
  const relations = { tags: ['relations'], security };

  app.get(
    '/api/entities/types',
    {
      config: { operation: { type: 'query', resource: 'entity' } },
      schema: {
        ...entities,
        summary: 'Entity types with their counts, most common first',
        description: TYPE_LIST_DESCRIPTION,
        querystring: typeListQuery,
        response: { 200: typeList, ...errors },
      },
    },
    async (request) => graph.listEntityTypes(spaceAuthOf(request), request.query),
  );

  app.post(
    '/api/entities',
    {
      config: { operation: { type: 'create', resource: 'entity' } },
      schema: {
        ...entities,
        summary: 'Create an entity',
        description:
          "Names are unique per space (409, also for another entity's alias). Blank and repeated observations are dropped. `possibleDuplicates` lists existing entities it is probably the same as (by name and type, best first; empty when none): merge them with `POST /api/entities/merge`.",
        body: entityInput,
        response: { 201: createdEntity, ...errors },
      },
    },
    async (request, reply) => {
      const auth = spaceAuthOf(request);
      const { created, possibleDuplicates } = await graph.createEntitiesNamingDuplicates(
        auth,
        [request.body],
        { existing: 'reject' },
        (error) => request.log.warn({ err: error }, 'likely duplicates lookup failed'),
      );
      return reply.status(201).send({
        ...created[0]!,
        possibleDuplicates: possibleDuplicates.map(({ other, score }) => ({ ...other, score })),
      });
    },
  );

  app.put(
    '/api/entities/:id',
    {
      config: { operation: { type: 'update', resource: 'entity' } },
      schema: {
        ...entities,
        summary: 'Update an entity',
        description:
          'Name and type are replaced; metadata and observations only when given. A given observation list becomes the entity’s list: unchanged observations keep their ids and dates.',
        params: idParams,
        body: entityUpdateInput,
        response: { 200: entity, ...errors },
      },
    },
    async (request) =>
      graph.updateEntity(spaceAuthOf(request), { id: request.params.id }, request.body),
  );

  app.post(
    '/api/entities/:id/observations',
    {
      config: { operation: { type: 'create', resource: 'observation' } },
      schema: {
        ...entities,
        summary: 'Add observations to an entity',
        description:
          'Body: `{ "observations": ["text", { "content": "text", "metadata": {} }] }`. Blank texts are dropped and texts the entity already has are skipped. Returns the entity and the observations actually added.',
        params: idParams,
        body: addObservationsInput,
        response: {
          201: z.object({ entity, added: z.array(observation) }),
          ...errors,
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await graph.addObservations(
            spaceAuthOf(request),
            request.params.id,
            request.body.observations,
          ),
        ),
  );

  app.get(
    '/api/relations/types',
    {
      config: { operation: { type: 'query', resource: 'relation' } },
      schema: {
        ...relations,
        summary: 'Relation types with their counts, most common first',
        description: TYPE_LIST_DESCRIPTION,
        querystring: typeListQuery,
        response: { 200: typeList, ...errors },
      },
    },
    async (request) => graph.listRelationTypes(spaceAuthOf(request), request.query),
  );

  app.post(
    '/api/relations',
    {
      config: { operation: { type: 'create', resource: 'relation' } },
      schema: {
        ...relations,
        summary: 'Create a relation',
        body: relationInput,
        response: { 201: relation, ...errors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await graph.createRelation(spaceAuthOf(request), request.body)),
  );

  app.put(
    '/api/relations/:id',
    {
      config: { operation: { type: 'update', resource: 'relation' } },
      schema: {
        ...relations,
        summary: 'Change a relation’s type (its ends cannot change)',
        params: idParams,
        body: relationUpdateInput,
        response: { 200: relation, ...errors },
      },
    },
    async (request) => graph.updateRelation(spaceAuthOf(request), request.params.id, request.body),
  );

  app.delete(
    '/api/relations/:id',
    {
      config: { operation: { type: 'delete', resource: 'relation' } },
      schema: {
        ...relations,
        summary: 'Delete a relation',
        description:
          '`callSeq` is the `{seq}` of `POST /api/changes/{seq}/revert`, which undoes it.',
        params: idParams,
        response: { 200: deleteResult, ...errors },
      },
    },
    async (request) => {
      const { callSeq } = await graph.deleteRelation(spaceAuthOf(request), request.params.id);
      return { success: true as const, callSeq };
    },
  );
};
