import { connectInfo } from '@engram/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-responses.js';
import { isLoopbackPeer, loopbackHostOf, relayedByProxy } from '../../lib/loopback.js';
import type { RouteOptions } from '../feature.js';
import type { ConnectService } from './connect.service.js';

const errors = errorResponses('UNAUTHORIZED');

/**
 * A request made on the server's own machine: its connection comes from a
 * loopback address (the socket's, never X-Forwarded-For), it names a
 * loopback host (`localhost`, `127.0.0.1`, `[::1]`; not a name a page could
 * point at 127.0.0.1), and no proxy relayed it (a proxy on the same machine
 * connects from loopback on behalf of anyone).
 */
function onThisMachine(request: FastifyRequest): boolean {
  return (
    isLoopbackPeer(request.raw.socket.remoteAddress) &&
    loopbackHostOf(request.headers.host) !== undefined &&
    !relayedByProxy(request.headers)
  );
}

export const connectRoutes: FastifyPluginAsyncZod<RouteOptions<ConnectService>> = async (
  app,
  { services: connect, http },
) => {
  app.get(
    '/api/connect',
    {
      // A signed-in person's screen (the Connect an agent panel): a session token only.
      onRequest: http.authenticateSession,
      schema: {
        tags: ['connect'],
        security: [{ bearerAuth: [] }],
        summary:
          'What the Connect an agent panel fills in: the install and data folders, only on this machine without PUBLIC_URL',
        response: { 200: connectInfo, ...errors },
      },
    },
    async (request, reply) => {
      // Who may see the paths depends on the connection: never kept by a cache.
      reply.header('cache-control', 'no-store');
      return { local: connect.localInstall(onThisMachine(request)) };
    },
  );
};
