import { z } from 'zod';
import { text } from './common.js';
import { permission } from './spaces.js';

/** A rolled key's predecessor keeps working this long (docs/product.md, States). */
export const ROLL_GRACE_DAYS = 14;
/** A key expiring within this many days is flagged isExpiringSoon (so is a rolled key in its grace). */
export const EXPIRING_SOON_DAYS = 7;

export const createApiKeyInput = z.object({
  name: text('Name is required')
    .trim()
    .min(1, 'Name is required')
    .max(100, 'Name must be at most 100 characters'),
  /**
   * What the key may touch (spaces.ts: `spaces:*:read`, `space:<slug>:write`…);
   * empty, the account's full access, as every key before spaces had.
   */
  permissions: z.array(permission).max(50).default([]),
  /** Optional lifetime; without it the key never expires. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyInput>;

export const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** First 6 and last 4 characters of the key. */
  keyPreview: z.string(),
  permissions: z.array(z.string()),
  expiresAt: z.string().nullable(),
  isExpired: z.boolean(),
  isExpiringSoon: z.boolean(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
  /** Who made the key (and whom it acts as): only they may roll it (docs/product.md). */
  createdBy: z.object({ id: z.string(), name: z.string() }),
  usage: z.object({ totalRequests: z.number().int(), activeDays: z.number().int() }),
  /** Set once the key is rolled: the id of the key that replaced it. */
  replacedById: z.string().nullable(),
  /** Set on a key issued by a roll: the id of the key it replaced. */
  replacesId: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKey>;

/** The full key appears only in the answers to create and roll. */
export const createdApiKey = apiKey.extend({ apiKey: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKey>;

export const apiKeyList = z.object({ apiKeys: z.array(apiKey) });

export const rolledApiKey = z.object({
  newKey: createdApiKey,
  oldKey: z.object({ id: z.string(), expiresAt: z.string() }),
});
export type RolledApiKey = z.infer<typeof rolledApiKey>;

export const personalApiKey = z.object({ apiKey: z.string() });

/** 'eng_key_abcdef…wxyz' → 'eng_ke…wxyz' (docs/product.md, Forms): first 6 and last 4 around an ellipsis. */
export function maskKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 6)}…${key.slice(-4)}` : key;
}
