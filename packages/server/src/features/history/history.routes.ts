import {
  changesQuery,
  entityAuthors,
  entityDeleteResult,
  historyPage,
  historyQuery,
  idParams,
  parseAsOf,
  revertResult,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { spaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import type { HistoryApi } from './history.service.js';
import { resourceErrors as errors } from '../../http/error-responses.js';

/**
 * History's REST routes (docs/history.md), and an entity's delete: history
 * owns it because `?purge=true` deletes the entity's history too.
 */
export const historyRoutes: FastifyPluginAsyncZod<RouteOptions<HistoryApi>> = async (
  app,
  { services: history, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveSpace);
  const security = [{ bearerAuth: [] }];
  const tags = ['history'];

  app.get(
    '/api/entities/:id/history',
    {
      config: { operation: { type: 'query', resource: 'entity' } },
      schema: {
        tags,
        security,
        summary: 'Every change to an entity, its observations and its relations, newest first',
        description:
          "Each change: its `seq`, the call it was part of (`callSeq`), type, time, who made it, and the entity (or relation) `before` and `after` it, with the observations it added, removed or changed. `nextCursor` is passed as `cursor` for older changes. Kept for the plan's history window.",
        params: idParams,
        querystring: historyQuery,
        response: { 200: historyPage, ...errors },
      },
    },
    async (request) =>
      history.entityHistory(spaceAuthOf(request), request.params.id, request.query),
  );

  app.get(
    '/api/entities/:id/authors',
    {
      config: { operation: { type: 'query', resource: 'entity' } },
      schema: {
        tags,
        security,
        summary: 'Who created an entity and who last changed it',
        description:
          "The people behind the calls that created the entity and that last changed it (itself, its observations or a relation touching it), with when, from the plan's history window: a field is null when history no longer holds that change, or its person is unknown or gone.",
        params: idParams,
        response: { 200: entityAuthors, ...errors },
      },
    },
    async (request) => history.entityAuthors(spaceAuthOf(request), request.params.id),
  );

  app.get(
    '/api/changes',
    {
      config: { operation: { type: 'query', resource: 'graph' } },
      schema: {
        tags,
        security,
        summary: "The space's changes, newest first",
        description:
          "`since` (excluded) and `until` (included) are ISO 8601 times or `seq:N`. Items as in an entity's history; paged by `cursor`.",
        querystring: changesQuery,
        response: { 200: historyPage, ...errors },
      },
    },
    async (request) => {
      const { since, until, ...page } = request.query;
      return history.listChanges(spaceAuthOf(request), {
        ...page,
        since: since ? parseAsOf(since) : undefined,
        until: until ? parseAsOf(until) : undefined,
      });
    },
  );

  app.post(
    '/api/changes/:seq/revert',
    {
      config: { operation: { type: 'update', resource: 'graph' } },
      schema: {
        tags,
        security,
        summary: 'Revert everything the call that made change `seq` did',
        description:
          'One change, or the whole batch its call made, put back as it was — itself recorded as a change. 409 naming what changed since when a row it changed (or an entity it created) changed after it.',
        params: z.object({
          seq: z.coerce
            .number({ error: "seq must be a change's sequence number" })
            .int()
            .min(1)
            .max(Number.MAX_SAFE_INTEGER),
        }),
        response: { 200: revertResult, ...errors },
      },
    },
    async (request) => history.revertChange(spaceAuthOf(request), request.params.seq),
  );

  app.delete(
    '/api/entities/:id',
    {
      config: { operation: { type: 'delete', resource: 'entity' } },
      schema: {
        tags: ['entities'],
        security,
        summary: 'Delete an entity with its observations and relations',
        description:
          "Its history is kept for the plan's window, so the delete can be reverted: `callSeq` is the `{seq}` of `POST /api/changes/{seq}/revert`. With `purge=true` the entity is deleted for good: its history, and the texts its change-log events carried, go too (no `callSeq`).",
        params: idParams,
        querystring: z.object({
          purge: z.enum(['true', 'false'], { error: 'purge must be true or false' }).optional(),
        }),
        response: { 200: entityDeleteResult, ...errors },
      },
    },
    async (request) => {
      const { callSeq } = await history.deleteEntity(spaceAuthOf(request), request.params.id, {
        purge: request.query.purge === 'true',
      });
      return { success: true as const, ...(callSeq === undefined ? {} : { callSeq }) };
    },
  );
};
