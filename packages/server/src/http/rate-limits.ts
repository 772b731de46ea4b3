import type { RateLimitOptions, RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { tooManyRequests } from '../lib/errors.js';
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

/**
 * The per-account limit when API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE is unset:
 * three credentials' worth, so a person's browser, an agent's key and that
 * key's predecessor in its roll grace can each use their own budget at once.
 */
export function accountRateLimitOf(config: {
  API_RATE_LIMIT_PER_MINUTE: number;
  API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE?: number | undefined;
}): number {
  return config.API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE ?? 3 * config.API_RATE_LIMIT_PER_MINUTE;
}

/**
 * One budget per account per minute across /api/* and /mcp, whatever
 * credentials it uses: an account's sessions, personal keys and API keys each
 * have the per-credential budget, and this bounds their sum. It needs the
 * account, so it runs once the route's onRequest hooks have authenticated
 * (preParsing: before the body is read); unauthenticated requests meet only
 * the per-credential (per-address) limit. It uses the rate-limit plugin's
 * store (register that first), so with Redis every node counts against the
 * same budget.
 */
export function registerAccountRateLimit(app: FastifyInstance, perMinute: number): void {
  const limit = app.createRateLimit({
    max: perMinute,
    timeWindow: '1 minute',
    keyGenerator: (request) => `account:${request.auth?.accountId}`,
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!request.auth || !isApiRoute(request.routeOptions.url)) return payload;
    const result = await limit(request);
    if (!result.isAllowed && result.isExceeded) {
      throw tooManyRequests(
        `Rate limit exceeded: this account may make ${perMinute} requests a minute to the API, across all its keys and sessions`,
        Math.max(1, result.ttlInSeconds),
      );
    }
    return payload;
  });
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
