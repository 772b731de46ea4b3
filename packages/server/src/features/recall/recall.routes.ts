import { contextAnswer, contextQuery, recallAnswer, recallQuery } from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { spaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import type { RecallService } from './recall.service.js';
import { errorResponses } from '../../http/error-responses.js';

const errors = errorResponses('VALIDATION_ERROR', 'UNAUTHORIZED', 'PLAN_LIMIT_REACHED');

/** A refusal names a query parameter as the validator does ('query.until'). */
const queryField = (name: string) => `query.${name}`;

/** REST adapters over recall: validate, call, shape. */
export const recallRoutes: FastifyPluginAsyncZod<RouteOptions<RecallService>> = async (
  app,
  { services: recall, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveSpace);
  const tags = ['recall'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/recall',
    {
      config: { operation: { type: 'query', resource: 'observation' } },
      schema: {
        tags,
        security,
        summary: 'Observations that answer a question, best first',
        description:
          'Ranked retrieval for a question in plain words: individual observations with the entity each belongs to, best first, each with `createdAt` (when it was written) and `validFrom`/`validTo` (when the fact held, null when not said). `types` and `entities` (comma separated) keep observations of entities of those types / with those exact names (or aliases). `since` and `until` (ISO dates or times, UTC, both inclusive; a date alone as `until` covers its whole day) keep only observations whose time is in range: `validFrom` when set (with `validTo`, a span that must overlap the range), else `createdAt`. Without them, time words in the question ("last week", "in March 2024", "recently", "now") set the range, read against `now` (default: the server\'s time): observations whose `validFrom` falls outside are left out, those without one rank lower. `timeRange` says which range applied (null: none). Each result carries `confidence` (0–1, comparable across questions). When even the best match is too weak, recall abstains: no results, `abstained: true` and `abstainReason` (false and null on every other answer); `abstain=false` asks for best-effort results anyway.',
        querystring: recallQuery,
        response: { 200: recallAnswer, ...errors },
      },
    },
    async (request) => {
      const { q, limit, types, entities, since, until, now, abstain } = request.query;
      return recall.recall(spaceAuthOf(request), {
        query: q,
        limit,
        entityTypes: types,
        entityNames: entities,
        since,
        until,
        now,
        abstain,
        field: queryField,
      });
    },
  );

  app.get(
    '/api/context',
    {
      config: { operation: { type: 'query', resource: 'observation' } },
      schema: {
        tags,
        security,
        summary: 'A block of what the memory knows about a question, cut to a budget',
        description:
          "The best observations for the question grouped by entity, with the relations among those entities, as one text of at most `maxChars` characters (default 4,000, at most 20,000) and as structured lists. A line shows the fact's date when known (`[2024-03-03]`). `since`, `until`, `now` and the question's time words keep to a time range as on `/api/recall`; `timeRange` says which. Abstains as `/api/recall` does (empty context, `abstained: true`); `abstain=false` asks for best-effort context.",
        querystring: contextQuery,
        response: { 200: contextAnswer, ...errors },
      },
    },
    async (request) =>
      recall.context(spaceAuthOf(request), {
        query: request.query.q,
        maxChars: request.query.maxChars,
        since: request.query.since,
        until: request.query.until,
        now: request.query.now,
        abstain: request.query.abstain,
        field: queryField,
      }),
  );
};
