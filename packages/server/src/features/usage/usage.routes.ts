import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Operation, UsageMeter } from './usage.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route counts as in usage metering; unmetered when absent. */
    operation?: Operation;
  }
}

/**
 * Metered routes are admitted against the plan's monthly operations before
 * they run (429 with Retry-After past it) and counted when they succeed. Both
 * the count and the give-back of a request that failed happen before its
 * answer is sent, so the client's next request (the dashboard's usage, say)
 * already sees them. Runs after authentication (preHandler).
 */
export function registerMetering(app: FastifyInstance, meter: UsageMeter): void {
  const admitted = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', async (request) => {
    const { operation } = request.routeOptions.config;
    if (operation && request.auth) {
      await meter.assertWithinPlan(request.auth.accountId);
      admitted.add(request);
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const { operation } = request.routeOptions.config;
    if (!operation || !request.auth || !admitted.delete(request)) return payload;
    // Counted in memory (flushed in batches): the answer never waits on a write for it.
    if (reply.statusCode < 400) meter.record(request.auth.accountId, operation, reply.elapsedTime);
    else await meter.release(request.auth.accountId);
    return payload;
  });
  // A request that ended without onSend (hijacked, aborted) is settled here.
  app.addHook('onResponse', async (request, reply) => {
    const { operation } = request.routeOptions.config;
    if (!operation || !request.auth || !admitted.delete(request)) return;
    if (reply.statusCode < 400) meter.record(request.auth.accountId, operation, reply.elapsedTime);
    else await meter.release(request.auth.accountId);
  });
}
