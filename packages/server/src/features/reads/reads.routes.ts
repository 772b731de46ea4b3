import {
  asOfParam,
  entity,
  entityList,
  entityListQuery,
  graphAroundQuery,
  graphData,
  graphDataQuery,
  idParams,
  relationList,
  relationListQuery,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { spaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import { asOfArgument, type ReadsService } from './reads.service.js';
import { resourceErrors as errors } from '../../http/error-responses.js';

const AS_OF_DESCRIPTION =
  ' With `asOf` (an ISO 8601 time or `seq:N`): the same answer as the graph was then, within the history the plan keeps (400 before it).';
const asOfQuery = { asOf: asOfParam.optional() };

/** The REST reads that take `asOf`: validate, call the reads service, shape. */
export const readsRoutes: FastifyPluginAsyncZod<RouteOptions<ReadsService>> = async (
  app,
  { services: reads, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveSpace);
  const security = [{ bearerAuth: [] }];
  const entities = { tags: ['entities'], security };
  const relations = { tags: ['relations'], security };

  app.get(
    '/api/entities',
    {
      config: { operation: { type: 'query', resource: 'entity' } },
      schema: {
        ...entities,
        summary: 'List or search entities',
        description:
          'Without `query`: newest first. With `query`: case-insensitive substring match on name, type or any observation, ranked exact name, name prefix, name substring, type, observation. `types` is comma separated. `nextCursor` is passed as `cursor` (same `query` and `types`) for the next page, which starts right after this one whatever was created or deleted meanwhile; null when nothing follows. `offset` still works and is ignored with `cursor`.',
        querystring: entityListQuery.extend(asOfQuery),
        response: { 200: entityList, ...errors },
      },
    },
    async (request) => {
      const { asOf, ...query } = request.query;
      return reads.listEntities(spaceAuthOf(request), query, asOfArgument(asOf, 'query.asOf'));
    },
  );

  app.get(
    '/api/entities/:id',
    {
      config: { operation: { type: 'query', resource: 'entity' } },
      schema: {
        ...entities,
        summary: 'One entity with its observations',
        description: AS_OF_DESCRIPTION.trim(),
        params: idParams,
        querystring: z.object(asOfQuery),
        response: { 200: entity, ...errors },
      },
    },
    async (request) =>
      reads.getEntity(
        spaceAuthOf(request),
        request.params.id,
        asOfArgument(request.query.asOf, 'query.asOf'),
      ),
  );

  app.get(
    '/api/relations',
    {
      config: { operation: { type: 'query', resource: 'relation' } },
      schema: {
        ...relations,
        summary: 'List relations',
        description:
          '`query` matches either end’s name or the relation type, case-insensitively; `relationTypes` is comma separated and matches exactly; `entityId` keeps the relations touching that entity.' +
          AS_OF_DESCRIPTION,
        querystring: relationListQuery.extend(asOfQuery),
        response: { 200: relationList, ...errors },
      },
    },
    async (request) => {
      const { asOf, ...query } = request.query;
      return reads.listRelations(spaceAuthOf(request), query, asOfArgument(asOf, 'query.asOf'));
    },
  );

  app.get(
    '/api/relations/graph/data',
    {
      config: { operation: { type: 'query', resource: 'graph' } },
      schema: {
        ...relations,
        summary: 'Graph for drawing',
        description:
          'With `rootEntityId`: its neighbourhood to `depth`, at most `limit` entities. Without: the best-connected entities and their neighbourhood up to `limit`. Only relations whose two ends are in the answer.' +
          AS_OF_DESCRIPTION,
        querystring: graphDataQuery.extend(asOfQuery),
        response: { 200: graphData, ...errors },
      },
    },
    async (request) => {
      const { asOf, ...options } = request.query;
      return reads.graphData(spaceAuthOf(request), options, asOfArgument(asOf, 'query.asOf'));
    },
  );

  app.get(
    '/api/relations/graph/:id',
    {
      config: { operation: { type: 'query', resource: 'graph' } },
      schema: {
        ...relations,
        summary: 'The graph around one entity, both directions, to `depth` (1–5)',
        description: AS_OF_DESCRIPTION.trim(),
        params: idParams,
        querystring: graphAroundQuery.extend(asOfQuery),
        response: { 200: graphData, ...errors },
      },
    },
    async (request) =>
      reads.graphAround(
        spaceAuthOf(request),
        request.params.id,
        { depth: request.query.depth, limit: 1000 },
        asOfArgument(request.query.asOf, 'query.asOf'),
      ),
  );
};
