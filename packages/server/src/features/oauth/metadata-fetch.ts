import { request } from 'node:https';
import { guardedLookup, isPrivateAddress, literalAddress } from '../../lib/outbound-address.js';

/** A Client ID Metadata Document is small: past this it is refused. */
export const METADATA_MAX_BYTES = 5 * 1024;
/** The whole fetch (connect, TLS, body) must end within this. */
export const METADATA_TIMEOUT_MS = 5_000;

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
    const literal = literalAddress(url);
    if (literal && !options.allowPrivateNetwork && isPrivateAddress(literal)) {
      throw new Error('Client metadata URL points at a private address');
    }
    return new Promise<Response>((resolve, reject) => {
      // One outcome per fetch: whatever the peer sends later (more bytes, a
      // reset, an error on the socket) is absorbed by the listeners below.
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
        req.destroy();
      };
      const req = request(
        url,
        {
          method: 'GET',
          headers: { accept: 'application/json', 'user-agent': 'Engram' },
          ca: options.ca,
          // A socket of its own, closed with the request: never handed back to
          // a keep-alive pool where a late error would have no listener.
          agent: false,
          timeout: METADATA_TIMEOUT_MS,
          signal: init?.signal ?? undefined,
          lookup: guardedLookup(
            options.allowPrivateNetwork,
            'Client metadata host resolves to a private address',
          ),
        },
        (response) => {
          const tooLarge = () => fail(new Error('Client metadata document is too large'));
          if (Number(response.headers['content-length'] ?? 0) > METADATA_MAX_BYTES) {
            return tooLarge();
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > METADATA_MAX_BYTES) return tooLarge();
            chunks.push(chunk);
          });
          response.on('error', fail);
          response.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
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
        () => fail(new Error('Client metadata fetch timed out')),
        METADATA_TIMEOUT_MS,
      );
      req.on('timeout', () => fail(new Error('Client metadata fetch timed out')));
      req.on('error', fail);
      req.end();
    });
  };
}
