import { isLoopbackPeer, relayedByProxy } from '../../lib/loopback.js';
import { forbidden, unauthorized } from '../../lib/errors.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteOptions } from '../feature.js';
import type { BackupService } from './backup.service.js';

/** The header `engram backup` sends the data folder's token in. */
export const BACKUP_TOKEN_HEADER = 'x-engram-backup-token';

/**
 * POST /internal/backup: the whole embedded database as an `engram backup`
 * file, for `engram backup` on this machine while this server owns the data
 * folder (decision 038). Only from a loopback peer, not relayed by a proxy,
 * with the token the server wrote into the data folder — never an account's
 * credential: the file holds every account, the instance secret and the
 * OAuth signing keys.
 */
export const backupRoutes: FastifyPluginAsyncZod<RouteOptions<BackupService>> = async (
  app,
  { services: backup },
) => {
  app.post(
    '/internal/backup',
    {
      schema: { hide: true },
      onRequest: async (request) => {
        if (!isLoopbackPeer(request.raw.socket.remoteAddress)) {
          throw forbidden('Backups are taken from this machine only (engram backup).');
        }
        if (relayedByProxy(request.headers)) {
          throw forbidden('Backups are not taken through a proxy (engram backup).');
        }
        const token = request.headers[BACKUP_TOKEN_HEADER];
        if (typeof token !== 'string' || token === '') {
          throw unauthorized('The data folder’s backup token is required (engram backup).');
        }
        if (!backup.authorizes(token)) throw forbidden('Not this data folder’s backup token.');
      },
    },
    async (_request, reply) => {
      const file = await backup.backupFile();
      return reply.header('cache-control', 'no-store').type('application/octet-stream').send(file);
    },
  );
};
