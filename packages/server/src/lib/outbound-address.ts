import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a request Engram makes on a user's say-so (a client's metadata
 * document, a webhook endpoint) may go: never to loopback, private networks,
 * link-local (cloud metadata services), carrier-grade NAT, multicast or the
 * reserved ranges, in IPv4 and IPv6 — unless the operator allows every
 * address (ALLOW_PRIVATE_NETWORK_TARGETS, development and tests only).
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (::a.b.c.d)
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8],
  ['64:ff9b::', 96], // NAT64: an IPv4 address behind a translator
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2001::', 32], // Teredo: an IPv4 address tunnelled
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: an IPv4 address tunnelled
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** True for an address no user-named request may reach (anything that is not an IP, too). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

/** A URL's host as an address when it is one ('[::1]' → '::1'), else undefined. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : undefined;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) requests that resolves the name and refuses the
 * connection when any address it resolves to is private: checked when the
 * socket connects, so a name that resolves to a public address when it is
 * saved and to a private one later (DNS rebinding) is refused too.
 */
export function guardedLookup(allowPrivateNetwork: boolean, refusal: string) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      if (
        list.length === 0 ||
        (!allowPrivateNetwork && list.some((a) => isPrivateAddress(a.address)))
      ) {
        return callback(Object.assign(new Error(refusal), { code: 'EPRIVATE' }), '', 0);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
