import { isIPv4 } from 'node:net';

/**
 * Loopback, exactly: these host names as URL parsing gives them (lower case,
 * IPv6 in brackets). Never a prefix or suffix test: `127.attacker.example`,
 * `127.0.0.1.nip.io` and `localhost.attacker.example` are names anyone can
 * point anywhere (DNS rebinding).
 */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a bind address (HOST, the operator's setting) is loopback: one of
 * those names, `::1` (written there without brackets), or an IPv4 address in
 * 127.0.0.0/8 — parsed as an address, so no name passes.
 */
export function isLoopbackBind(host: string): boolean {
  const name = host.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || name === '::1' || (isIPv4(name) && name.startsWith('127.'));
}

/**
 * Headers a proxy adds: a request that carries one was relayed from
 * elsewhere, whatever address it arrived from.
 */
export const RELAY_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
] as const;

/** Whether a request carries any of `RELAY_HEADERS`. */
export function relayedByProxy(headers: Readonly<Record<string, unknown>>): boolean {
  return RELAY_HEADERS.some((name) => headers[name] !== undefined);
}

/**
 * Whether a socket's peer address is loopback (an IPv4-mapped one too): the
 * connection's own address, never X-Forwarded-For, which TRUST_PROXY would
 * let a client write.
 */
export function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && isLoopbackBind(address.replace(/^::ffff:/i, ''));
}

/**
 * The host name of a Host header when it is exactly one of `LOOPBACK_HOSTS`
 * with at most a port (`localhost:8787`, `[::1]:8787`), else undefined.
 */
export function loopbackHostOf(header: string | undefined): string | undefined {
  const name = /^([^:[\]]+|\[[^\]]+\])(?::\d{1,5})?$/.exec(header ?? '')?.[1]?.toLowerCase();
  return name !== undefined && LOOPBACK_HOSTS.has(name) ? name : undefined;
}
