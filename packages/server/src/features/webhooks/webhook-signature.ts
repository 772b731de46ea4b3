import { WEBHOOK_TOLERANCE_SECONDS } from '@engram/shared';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new signing secret: shown once, kept to sign (a receiver holds the same string). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function hmac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * `Engram-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, one
 * `v1` per secret (after a rotation the previous one signs too, for a day),
 * the scheme receivers already verify for other providers.
 */
export function signatureHeader(body: string, secrets: string[], at: Date): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmac(secret, timestamp, body)}`)].join(
    ',',
  );
}

/**
 * What a receiver does (docs/webhooks.md has it as ten lines for users): the
 * signature is valid when one `v1` is the HMAC of `t.body` with its secret and
 * `t` is within the tolerance of its clock (a replayed old request fails).
 */
export function verifySignature(
  header: string,
  body: string,
  secret: string,
  now: Date,
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
): boolean {
  const parts = header.split(',').map((part) => part.split('=', 2) as [string, string?]);
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, timestamp, body), 'hex');
  return parts.some(([key, value]) => {
    if (key !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
