import type { FastifyInstance } from 'fastify';
import type { Operation, UsageMeter } from './usage.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route counts as in usage metering; unmetered when absent. */
    operation?: Operation;
  }
}

/**
 * Metered routes are refused (429) past the plan's monthly operations and
 * counted when they succeed. Runs after authentication (preHandler).
 */
export function registerMetering(app: FastifyInstance, meter: UsageMeter): void {
  app.addHook('preHandler', async (request) => {
    const { operation } = request.routeOptions.config;
    if (operation && request.auth) await meter.assertWithinPlan(request.auth.accountId);
  });
  app.addHook('onResponse', async (request, reply) => {
    const { operation } = request.routeOptions.config;
    if (operation && request.auth && reply.statusCode < 400) {
      meter.record(request.auth.accountId, operation, reply.elapsedTime);
    }
  });
}
