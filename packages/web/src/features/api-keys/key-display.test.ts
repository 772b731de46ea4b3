import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import type { ApiKey } from '@engram/shared';
import {
  errorMessage,
  keyLimitNote,
  keyLimitReached,
  keyStateOf,
  maskedPreview,
  mayRoll,
  rollOf,
} from './key-display';

describe('API key display rules', () => {
  it('masks a known key to its first 6 and last 4 characters around an ellipsis', () => {
    expect(maskedPreview({ keyPreview: 'server-preview' }, 'eng_key_abcdefghijklmnopwxyz')).toBe(
      'eng_ke…wxyz',
    );
  });

  it("shows the server's preview when this session never saw the full key", () => {
    expect(maskedPreview({ keyPreview: 'eng_ke…wxyz' })).toBe('eng_ke…wxyz');
  });

  it('leaves a key too short to mask as it is', () => {
    expect(maskedPreview({ keyPreview: '' }, 'short_key')).toBe('short_key');
  });

  it("offers a roll only to the key's maker", () => {
    const key = { createdBy: { id: 'user-1', name: 'Ada Lovelace' } };
    expect(mayRoll(key, 'user-1')).toBe(true);
    expect(mayRoll(key, 'user-2')).toBe(false);
    expect(mayRoll(key, undefined)).toBe(false);
  });

  it('reads the state from isExpired and isExpiringSoon, expired first', () => {
    expect(keyStateOf({ isExpired: true, isExpiringSoon: true })).toBe('expired');
    expect(keyStateOf({ isExpired: false, isExpiringSoon: true })).toBe('expiring-soon');
    expect(keyStateOf({ isExpired: false, isExpiringSoon: false })).toBe('active');
  });

  it("uses the server's message when it sent one, the fallback otherwise", () => {
    const limit = new ApiError(
      402,
      { error: 'API key limit reached', code: 'PLAN_LIMIT_REACHED' },
      'x',
    );
    expect(errorMessage(limit, 'Failed to create API key')).toBe('API key limit reached');
    expect(errorMessage(new ApiError(0, null, 'Could not reach the server'), 'Failed')).toBe(
      'Failed',
    );
    expect(errorMessage(new Error('boom'), 'Failed to load API keys')).toBe(
      'Failed to load API keys',
    );
  });

  it('finds the other keys of a roll among the listed keys', () => {
    const key = (id: string, links: Partial<ApiKey> = {}) =>
      ({ id, replacedById: null, replacesId: null, ...links }) as ApiKey;
    const oldest = key('a', { replacedById: 'b' });
    const middle = key('b', { replacesId: 'a', replacedById: 'c' });
    const newest = key('c', { replacesId: 'b' });
    const keys = [newest, middle, oldest];
    expect(rollOf(middle, keys)).toEqual({ replacedBy: newest, replaces: oldest });
    expect(rollOf(newest, keys)).toEqual({ replacedBy: undefined, replaces: middle });
    // A deleted counterpart is simply not found.
    expect(rollOf(oldest, [oldest])).toEqual({ replacedBy: undefined, replaces: undefined });
  });
});

describe("the plan's key limit", () => {
  const live = { isExpired: false };
  const expired = { isExpired: true };
  it('is reached when the live keys listed fill the plan', () => {
    expect(keyLimitReached([live], 1)).toBe(true);
    expect(keyLimitReached([live, expired], 3)).toBe(false);
    expect(keyLimitReached([expired], 1)).toBe(false);
    expect(keyLimitReached([], 1)).toBe(false);
  });

  it('never holds Create back when unlimited or not known yet', () => {
    expect(keyLimitReached([live, live], -1)).toBe(false);
    expect(keyLimitReached(undefined, 1)).toBe(false);
    expect(keyLimitReached([live], undefined)).toBe(false);
  });

  it('says the limit in the plan’s words', () => {
    expect(keyLimitNote(1, 'Free')).toBe(
      'Your Free plan allows 1 API key. Delete a key or upgrade your plan to create another.',
    );
    expect(keyLimitNote(3, 'Starter')).toMatch(/^Your Starter plan allows 3 API keys\./);
  });
});
