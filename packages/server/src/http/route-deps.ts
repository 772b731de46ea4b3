import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import type { GraphDeps } from '../features/graph/graph.service.js';
import type { KeysDeps } from '../features/keys/keys.service.js';
import type { UsageMeter } from '../features/usage/usage.service.js';
import type { EventBus } from '../realtime/event-bus.js';

/** What every feature's routes are registered with. */
export interface RouteDeps {
  db: Db;
  config: Config;
  keys: KeysDeps;
  graph: GraphDeps;
  bus: EventBus;
  usage: UsageMeter;
  /** The clock every service reads; tests move it. */
  now: () => Date;
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}
