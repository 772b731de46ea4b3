import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP } from 'node:net';

/** A Client ID Metadata Document is small: past this it is refused. */
export const METADATA_MAX_BYTES = 5 * 1024;
/** The whole fetch (connect, TLS, body) must end within this. */
export const METADATA_TIMEOUT_MS = 5_000;

/**
 * Addresses no fetch made on a client's say-so may reach: loopback, private
 * networks, link-local (cloud metadata services), carrier-grade NAT,
 * multicast and the reserved ranges, in IPv4 and IPv6.
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
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

export interface MetadataFetchOptions {
  /** ALLOW_PRIVATE_NETWORK_TARGETS: any address may be reached (development and tests only). */
  allowPrivateNetwork: boolean;
  /** Extra certificate authority to trust (tests serve documents with a certificate of their own). */
  ca?: string | undefined;
}

/**
 * The `fetch` the authorization server reads Client ID Metadata Documents
 * with: https only, every address the name resolves to checked at connect
 * time (so a name that resolves again to a private address is refused too),
 * no redirects followed (anything but 200 is refused by the library), at
 * most METADATA_MAX_BYTES and METADATA_TIMEOUT_MS. Built on node:https so
 * the check does not depend on the library reaching fetch's internals.
 */
export function metadataFetch(options: MetadataFetchOptions) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:') throw new Error('Client metadata must be fetched over https');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !options.allowPrivateNetwork && isPrivateAddress(host)) {
      throw new Error('Client metadata URL points at a private address');
    }
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'GET',
          headers: { accept: 'application/json', 'user-agent': 'Engram' },
          ca: options.ca,
          timeout: METADATA_TIMEOUT_MS,
          signal: init?.signal ?? undefined,
          lookup: (hostname, lookupOptions, callback) =>
            dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
              if (error) return callback(error, '', 0);
              const list = addresses as LookupAddress[];
              const refused =
                !options.allowPrivateNetwork && list.some((a) => isPrivateAddress(a.address));
              if (refused || list.length === 0) {
                return callback(
                  new Error('Client metadata host resolves to a private address'),
                  '',
                  0,
                );
              }
              if (lookupOptions.all) return callback(null, list as never);
              callback(null, list[0]!.address, list[0]!.family);
            }),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > METADATA_MAX_BYTES) {
              req.destroy(new Error('Client metadata document is too large'));
              return;
            }
            chunks.push(chunk);
          });
          response.on('error', reject);
          response.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers)) {
              if (typeof value === 'string') headers.set(name, value);
            }
            const status = response.statusCode ?? 502;
            // A Response of these statuses may not have a body; the library refuses them anyway.
            const body = [204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status, headers }));
          });
        },
      );
      const timer = setTimeout(
        () => req.destroy(new Error('Client metadata fetch timed out')),
        METADATA_TIMEOUT_MS,
      );
      req.on('close', () => clearTimeout(timer));
      req.on('timeout', () => req.destroy(new Error('Client metadata fetch timed out')));
      req.on('error', reject);
      req.end();
    });
  };
}
