import { analyticsSummary, monthlySummary, realTimeStats } from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authOf } from '../../http/authenticate.js';
import { namedSpaceAuthOf } from '../../http/space-scope.js';
import type { RouteOptions } from '../feature.js';
import type { AnalyticsService } from './analytics.service.js';
import { errorResponses } from '../../http/error-responses.js';

const errors = errorResponses('UNAUTHORIZED');

/**
 * The dashboard's reads (docs/product.md, Calls). Not metered: looking at your
 * usage does not use it up, and stays possible past the monthly limit.
 */
export const analyticsRoutes: FastifyPluginAsyncZod<RouteOptions<AnalyticsService>> = async (
  app,
  { services: analytics, http },
) => {
  app.addHook('onRequest', http.authenticate);
  app.addHook('preValidation', http.resolveNamedSpace);
  const schema = { tags: ['analytics'], security: [{ bearerAuth: [] }] };

  app.get(
    '/api/analytics',
    {
      schema: {
        ...schema,
        summary: 'Dashboard summary: graph totals, recent activity, usage and plan limits',
        description:
          'Totals come from counters kept in the write transaction and usage from the daily usage rows, so the answer takes the same few milliseconds at any account size. Days and months are UTC. The graph numbers are those of the space the request names (X-Engram-Space or `?space=`), or of every space when it names none.',
        response: { 200: analyticsSummary, ...errors },
      },
    },
    async (request) => analytics.summary(namedSpaceAuthOf(request)),
  );

  app.get(
    '/api/analytics/stats/real-time',
    {
      schema: {
        ...schema,
        summary: "Today's operations by kind (UTC day)",
        response: { 200: realTimeStats, ...errors },
      },
    },
    async (request) => analytics.realTimeStats(authOf(request)),
  );

  app.get(
    '/api/analytics/billing/monthly-summary',
    {
      schema: {
        ...schema,
        summary:
          "This month's operations: total, per operation type, and per operation and resource with the average response time",
        response: { 200: monthlySummary, ...errors },
      },
    },
    async (request) => analytics.monthlySummary(authOf(request)),
  );
};
