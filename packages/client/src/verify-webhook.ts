const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Whether a webhook request is Engram's: docs/webhooks.md's `verify`, on
 * WebCrypto (Node 20+, Deno, edge runtimes, browsers). `header` is the
 * `Engram-Signature` header (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`),
 * `rawBody` the body exactly as received (before parsing it), `secret` the
 * endpoint's whole `whsec_…` string. True when `t` is within
 * `toleranceSeconds` of this clock and one `v1` is the HMAC-SHA256 of
 * `t.body` with the secret: while a secret rotates, either secret's `v1`.
 */
export async function verifyWebhook(
  header: string,
  rawBody: string | Uint8Array,
  secret: string,
  toleranceSeconds = 300,
): Promise<boolean> {
  if (typeof header !== 'string' || !secret) return false;
  const parts = header.split(',').map((part) => part.trim().split('='));
  const t = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!t || !Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) {
    return false;
  }
  const prefix = encoder.encode(`${t}.`);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  for (const [name, hex] of parts) {
    if (name !== 'v1' || hex === undefined) continue;
    const signature = hexBytes(hex);
    // WebCrypto's verify compares in constant time.
    if (signature && (await globalThis.crypto.subtle.verify('HMAC', key, signature, signed))) {
      return true;
    }
  }
  return false;
}
