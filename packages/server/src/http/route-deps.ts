import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';

/** What every feature's routes are registered with. */
export interface RouteDeps {
  db: Db;
  config: Config;
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}
