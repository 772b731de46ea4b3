import { createHash, randomBytes } from 'node:crypto';

/** A random secret with a recognisable prefix, e.g. `eng_sess_…`. Shown once, stored hashed. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/**
 * Secrets are 256 random bits, so one fast SHA-256 is enough to store them:
 * lookup is a single indexed equality, never a slow hash per stored row.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
