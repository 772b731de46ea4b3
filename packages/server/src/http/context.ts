import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { CredentialResolver } from './authenticate.js';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The HTTP plumbing every adapter's routes are registered with, beside their services. */
export interface HttpContext {
  config: Config;
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
  /**
   * After `authenticate`: the space the request names (X-Engram-Space or
   * `?space=`, none: `default`), checked against the credential; graph
   * routes read it with `spaceAuthOf`.
   */
  resolveSpace: Hook;
  /** Like `resolveSpace` when the request names a space; naming none means every space (`namedSpaceAuthOf`). */
  resolveNamedSpace: Hook;
}
