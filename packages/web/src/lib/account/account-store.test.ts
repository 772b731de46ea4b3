import { describe, expect, it, vi } from 'vitest';
import { apiRequest, setAccountGoneHandler } from '../api-client';
import {
  forgetAccountId,
  readAccountId,
  storeAccountId,
  subscribeToAccountId,
} from './account-store';
import { invitationPath, tokenFromHash } from './pending-invitation';

function stubFetch(status: number, body: unknown) {
  const fetchMock = vi.fn(
    async (_input: RequestInfo | URL, _init?: RequestInit) =>
      new Response(JSON.stringify(body), { status }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const headersOf = (fetchMock: ReturnType<typeof stubFetch>) =>
  new Headers(fetchMock.mock.calls.at(-1)?.[1]?.headers);

describe('the account acted in', () => {
  it('is the person’s own (none) until one is chosen; the choice is kept for the tab and new tabs', () => {
    expect(readAccountId()).toBeNull();
    const heard = vi.fn();
    const off = subscribeToAccountId(heard);
    storeAccountId('acme');
    expect(readAccountId()).toBe('acme');
    expect(sessionStorage.getItem('engram_account')).toBe('acme');
    expect(localStorage.getItem('engram_last_account')).toBe('acme');
    expect(heard).toHaveBeenCalledTimes(1);
    storeAccountId('acme');
    expect(heard).toHaveBeenCalledTimes(1);
    forgetAccountId();
    expect(readAccountId()).toBeNull();
    expect(sessionStorage.getItem('engram_account')).toBeNull();
    expect(heard).toHaveBeenCalledTimes(2);
    off();
  });

  it('is named in every request once chosen, and not when a call asks for none', async () => {
    const fetchMock = stubFetch(200, { ok: true });
    await apiRequest('/api/entities');
    expect(headersOf(fetchMock).get('X-Engram-Account')).toBeNull();
    storeAccountId('acme');
    await apiRequest('/api/entities');
    expect(headersOf(fetchMock).get('X-Engram-Account')).toBe('acme');
    await apiRequest('/api/invitations/preview', { method: 'POST', body: {}, account: null });
    expect(headersOf(fetchMock).get('X-Engram-Account')).toBeNull();
  });

  it('is forgotten when the server says it is not the person’s (any more)', async () => {
    const gone = vi.fn();
    const restore = setAccountGoneHandler(gone);
    storeAccountId('acme');
    stubFetch(404, { error: 'Entity not found', code: 'NOT_FOUND' });
    await expect(apiRequest('/api/entities/x')).rejects.toThrow('Entity not found');
    expect(readAccountId()).toBe('acme');
    stubFetch(404, { error: 'Account not found', code: 'NOT_FOUND' });
    await expect(apiRequest('/api/entities')).rejects.toMatchObject({ isAccountGone: true });
    expect(readAccountId()).toBeNull();
    expect(gone).toHaveBeenCalledTimes(1);
    restore();
  });
});

describe('an invitation link', () => {
  it('carries its token in the fragment', () => {
    expect(tokenFromHash('#token=abc_123')).toBe('abc_123');
    expect(tokenFromHash('#token=')).toBeNull();
    expect(tokenFromHash('')).toBeNull();
    expect(invitationPath('a b')).toBe('/invitations/accept#token=a+b');
    expect(tokenFromHash('#token=a+b')).toBe('a b');
  });
});
