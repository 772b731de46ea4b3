import { describe, expect, it } from 'vitest';
import { webAddress } from '@/lib/web-address';
import { lastUsedLabel, scopeLabel } from './grant-display';

const NOW = new Date('2027-03-10T12:00:00Z');

describe('connected app display', () => {
  it('names the two scopes in a word and shows any other as sent', () => {
    expect(scopeLabel('memory:read')).toBe('Read');
    expect(scopeLabel('memory:write')).toBe('Write');
    expect(scopeLabel('profile')).toBe('profile');
  });

  it('says when an app was last used, relative while recent', () => {
    expect(lastUsedLabel(null, NOW)).toBe('never');
    expect(lastUsedLabel('2027-03-10T11:59:30Z', NOW)).toBe('just now');
    expect(lastUsedLabel('2027-03-10T11:55:00Z', NOW)).toBe('5 minutes ago');
    expect(lastUsedLabel('2027-03-10T09:00:00Z', NOW)).toBe('3 hours ago');
    expect(lastUsedLabel('2027-03-09T10:00:00Z', NOW)).toBe('yesterday');
    expect(lastUsedLabel('2027-02-20T12:00:00Z', NOW)).toBe('2 weeks ago');
    expect(lastUsedLabel('2026-12-25T12:00:00Z', NOW)).toBe('Dec 25, 2026');
  });

  it('keeps only web addresses of what an app says about itself', () => {
    expect(webAddress('https://claude.ai/')?.host).toBe('claude.ai');
    expect(webAddress('javascript:alert(1)')).toBeNull();
    expect(webAddress('not a url')).toBeNull();
    expect(webAddress(null)).toBeNull();
  });
});
