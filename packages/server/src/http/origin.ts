import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../lib/errors.js';

export interface OriginPolicy {
  /** The public origin, when PUBLIC_URL is set; otherwise loopback origins (any port) are allowed. */
  publicOrigin: string | undefined;
  /** Host names accepted in the Host header; undefined accepts any (PUBLIC_URL set: a proxy may rewrite it). */
  hosts: Set<string> | undefined;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

function isLoopback(host: string): boolean {
  return ['localhost', '::1', '[::1]'].includes(host) || host.startsWith('127.');
}

/**
 * Which browser origins may open /mcp and /ws/connect (DNS-rebinding and
 * cross-site protection; the MCP specification requires Origin checks).
 * PUBLIC_URL names the one public origin; without it, pages on loopback
 * origins (any port: the web app, its dev server) are allowed, and a server
 * bound to loopback accepts loopback Host names only.
 */
export function originPolicy(config: {
  PUBLIC_URL?: string | undefined;
  HOST: string;
}): OriginPolicy {
  if (config.PUBLIC_URL) {
    return { publicOrigin: new URL(config.PUBLIC_URL).origin, hosts: undefined };
  }
  return {
    publicOrigin: undefined,
    hosts: isLoopback(config.HOST) ? new Set(LOOPBACK_HOSTS) : undefined,
  };
}

function originAllowed(policy: OriginPolicy, origin: string): boolean {
  if (policy.publicOrigin) return origin === policy.publicOrigin;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url.hostname);
  } catch {
    return false;
  }
}

function hostName(header: string): string {
  // "[::1]:8787" → "[::1]"; "localhost:8787" → "localhost"
  return header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0]!;
}

/** Why the request's Origin or Host is refused, or undefined when it is allowed. */
export function originRefusal(
  policy: OriginPolicy,
  headers: { origin?: string | undefined; host?: string | undefined },
): string | undefined {
  if (headers.origin !== undefined && !originAllowed(policy, headers.origin)) {
    return `Origin not allowed: ${headers.origin.slice(0, 200)}`;
  }
  if (policy.hosts && !policy.hosts.has(hostName(headers.host ?? '').toLowerCase())) {
    return 'Host not allowed';
  }
  return undefined;
}

/** An onRequest hook refusing disallowed origins and hosts with 403. */
export function checkOriginWith(policy: OriginPolicy) {
  return async function checkOrigin(request: FastifyRequest, _reply: FastifyReply) {
    const refusal = originRefusal(policy, request.headers);
    if (refusal) throw forbidden(refusal);
  };
}
