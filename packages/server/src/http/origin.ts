import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../lib/errors.js';
import { isLoopbackBind, LOOPBACK_HOSTS } from '../lib/loopback.js';

export interface OriginPolicy {
  /** The public origin, when PUBLIC_URL is set; otherwise loopback origins (any port) are allowed. */
  publicOrigin: string | undefined;
  /** Host names accepted in the Host header; undefined accepts any (PUBLIC_URL set: a proxy may rewrite it). */
  hosts: ReadonlySet<string> | undefined;
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
    // A bind to another 127.x address is reached by that address too.
    hosts: isLoopbackBind(config.HOST) ? new Set([...LOOPBACK_HOSTS, config.HOST]) : undefined,
  };
}

/**
 * The host name of an Origin header, or undefined unless the header is an
 * origin exactly as a browser serializes it (`scheme://host[:port]`): with
 * userinfo (`http://127.0.0.1@attacker.example`), a path or a fragment
 * (`http://attacker.example#@127.0.0.1`) it is no browser's origin.
 */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    const web = url.protocol === 'http:' || url.protocol === 'https:';
    return web && url.origin === origin ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

function originAllowed(policy: OriginPolicy, origin: string): boolean {
  if (policy.publicOrigin) return origin === policy.publicOrigin;
  const host = originHost(origin);
  return host !== undefined && LOOPBACK_HOSTS.has(host);
}

/** The host name of a Host header (`host[:port]`), or undefined when it is anything more. */
function hostName(header: string): string | undefined {
  // URL syntax would read these as userinfo, a path, a query or a fragment.
  if (/[@/\\?#]/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`).hostname; // "[::1]:8787" → "[::1]", lower case
  } catch {
    return undefined;
  }
}

/** Why the request's Origin or Host is refused, or undefined when it is allowed. */
export function originRefusal(
  policy: OriginPolicy,
  headers: { origin?: string | undefined; host?: string | undefined },
): string | undefined {
  if (headers.origin !== undefined && !originAllowed(policy, headers.origin)) {
    return `Origin not allowed: ${headers.origin.slice(0, 200)}`;
  }
  if (policy.hosts && !policy.hosts.has(hostName(headers.host ?? '') ?? '')) {
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
