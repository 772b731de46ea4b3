import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import type { AnalyticsDeps } from './features/analytics/analytics.service.js';
import type { AuthDeps } from './features/auth/auth.service.js';
import type { BillingDeps } from './features/billing/billing.service.js';
import type { GraphDeps } from './features/graph/graph.service.js';
import type { KeysDeps } from './features/keys/keys.service.js';
import type { RecallDeps } from './features/recall/recall.service.js';
import type { UsageMeter } from './features/usage/usage.service.js';
import type { CredentialResolver } from './http/authenticate.js';
import type { CredentialWatch } from './realtime/credential-watch.js';
import type { EventBus } from './realtime/event-bus.js';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * What every adapter's routes are registered with: declared here, beside the
 * composition root (app.ts) that builds it, so `http/` stays plumbing that
 * knows no feature.
 */
export interface RouteDeps {
  config: Config;
  auth: AuthDeps;
  keys: KeysDeps;
  graph: GraphDeps;
  recall: RecallDeps;
  bus: EventBus;
  usage: UsageMeter;
  analytics: AnalyticsDeps;
  billing: BillingDeps;
  credentials: CredentialWatch;
  /** The clock every service reads; tests move it. */
  now: () => Date;
  /** Session token or API key (graph routes). */
  authenticate: Hook;
  /** Who a bearer credential acts as (MCP verifies it through the SDK's resource-server helper). */
  resolveCredential: CredentialResolver;
  /** Session token only: a person's own acts (see docs/architecture.md "Credentials"). */
  authenticateSession: Hook;
  /** Refuses browser origins and Host names that are not ours (/mcp, /ws/connect). */
  checkOrigin: Hook;
}
