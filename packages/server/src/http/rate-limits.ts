import type { RateLimitOptions, RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { hashSecret } from '../lib/secrets.js';
import { credentialOf } from './authenticate.js';

/** The routes agents and the web app call with a credential: the graph API, keys and MCP. */
function isApiRoute(url: string | undefined): boolean {
  return url !== undefined && (url.startsWith('/api/') || url === '/mcp');
}

/** One bucket per credential (hashed: the limiter's store never holds a key), else per address. */
function credentialBucket(request: FastifyRequest): string {
  const credential = credentialOf(request);
  return credential ? `credential:${hashSecret(credential)}` : `address:${request.ip}`;
}

/**
 * The rate-limit plugin's settings: one shared budget per credential per
 * minute across every /api/* and /mcp route (so one client cannot starve the
 * others); every other route is left alone unless it sets its own limit.
 * With Redis, all nodes count against the same budgets.
 */
export function apiRateLimit(perMinute: number, redis: Redis | undefined): RateLimitPluginOptions {
  return {
    global: true,
    max: perMinute,
    timeWindow: '1 minute',
    keyGenerator: credentialBucket,
    allowList: (request) => !isApiRoute(request.routeOptions.url),
    // A Redis outage must not fail every API call.
    ...(redis ? { redis, skipOnError: true } : {}),
  };
}

/** A route's own limit per client address (sign-up and sign-in). */
export function perAddressLimit(perMinute: number): RateLimitOptions {
  return {
    max: perMinute,
    timeWindow: '1 minute',
    keyGenerator: (request) => request.ip,
    allowList: [],
  };
}
