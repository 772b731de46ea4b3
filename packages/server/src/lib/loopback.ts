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
