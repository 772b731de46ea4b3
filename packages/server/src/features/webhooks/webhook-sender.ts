import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, isPrivateAddress, literalAddress } from '../../lib/outbound-address.js';

/** A delivery attempt ends (connect, TLS, answer) within this. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Characters of an answer's body kept in the deliveries log; the rest is read and dropped. */
export const RESPONSE_EXCERPT_CHARS = 500;
/** Bytes of an answer read at most before the connection is closed. */
const RESPONSE_READ_BYTES = 16 * 1024;

export interface SendOptions {
  /** ALLOW_PRIVATE_NETWORK_TARGETS: http and any address (development and tests only). */
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
  /** Extra certificate authority to trust (tests serve https with a certificate of their own). */
  ca?: string | undefined;
}

export interface Attempt {
  /** succeeded: 2xx; retry: no answer, 5xx or 429; failed: any other answer, or a refused address. */
  outcome: 'succeeded' | 'retry' | 'failed';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  excerpt: string | null;
}

/** Why a URL may not be sent to, before any connection (the address is checked again at connect). */
export function refusedTarget(url: URL, allowPrivateNetwork: boolean): string | undefined {
  if (url.protocol !== 'https:' && !(allowPrivateNetwork && url.protocol === 'http:')) {
    return 'URL must use https';
  }
  if (url.username || url.password) return 'URL must not contain a user name or password';
  const literal = literalAddress(url);
  if (literal && !allowPrivateNetwork && isPrivateAddress(literal)) {
    return 'URL must not point at a private, loopback or link-local address';
  }
  return undefined;
}

/**
 * POSTs one delivery: no redirects followed, every address the host resolves
 * to checked when the socket connects (DNS rebinding included), at most
 * DELIVERY_TIMEOUT_MS, and only an excerpt of the answer kept. Never throws.
 */
export function sendWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<Attempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve({
      outcome: 'failed',
      statusCode: null,
      durationMs: 0,
      error: 'Invalid URL',
      excerpt: null,
    });
  }
  const refused = refusedTarget(url, options.allowPrivateNetwork);
  if (refused) {
    return Promise.resolve({
      outcome: 'failed',
      statusCode: null,
      durationMs: 0,
      error: refused,
      excerpt: null,
    });
  }
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const finish = (attempt: Omit<Attempt, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...attempt, durationMs: elapsed() });
    };
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ca: options.ca,
        // A socket of its own, closed with the request: never handed back to a
        // keep-alive pool where a late error from the peer would have no listener.
        agent: false,
        lookup: guardedLookup(
          options.allowPrivateNetwork,
          'Host resolves to a private, loopback or link-local address',
        ),
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
          const ok = status >= 200 && status < 300;
          finish({
            outcome: ok ? 'succeeded' : status >= 500 || status === 429 ? 'retry' : 'failed',
            statusCode: status,
            error: ok ? null : `HTTP ${status}`,
            excerpt: excerpt || null,
          });
        };
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_READ_BYTES) chunks.push(chunk);
          size += chunk.length;
          // The status is what counts: a long answer is not read to its end.
          if (size >= RESPONSE_READ_BYTES) {
            done();
            req.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ outcome: 'retry', statusCode: null, error: 'Timed out', excerpt: null });
      req.destroy();
    }, options.timeoutMs ?? DELIVERY_TIMEOUT_MS);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const refusedAddress = error.code === 'EPRIVATE';
      finish({
        // A refused address is the endpoint's own fault, like a 4xx; a network error may pass.
        outcome: refusedAddress ? 'failed' : 'retry',
        statusCode: null,
        error: refusedAddress ? error.message : `${error.code ?? 'Error'}: ${error.message}`,
        excerpt: null,
      });
    });
    req.end(body);
  });
}
