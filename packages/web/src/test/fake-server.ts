import type { Role } from '@engram/shared';
import { vi } from 'vitest';

export interface FakeRequest {
  method: string;
  path: string;
  /** The query parameters sent. */
  query: URLSearchParams;
  body: unknown;
  headers: Headers;
}

type Reply = { status: number; body?: unknown } | 'network-error';
type Handler = (request: FakeRequest) => Reply;

/**
 * Stands in for the server in component tests: `fetch` is answered by the
 * handler registered for "METHOD /path"; anything else is a 404.
 */
export function fakeServer(handlers: Record<string, Handler>) {
  const requests: FakeRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const request: FakeRequest = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      headers: new Headers(init.headers),
    };
    requests.push(request);
    const handler = handlers[`${request.method} ${request.path}`];
    const reply: Reply = handler
      ? handler(request)
      : { status: 404, body: { error: 'Not found', code: 'NOT_FOUND' } };
    if (reply === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { requests, fetchMock };
}

export const TEST_USER = {
  id: 'user-1',
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  apiKey: 'eng_personal_key',
  // GET /auth/me (issue 40): the accounts the person belongs to and the one acted in.
  accounts: [{ id: 'account-1', name: 'Ada Lovelace', role: 'owner' as const }],
  currentAccountId: 'account-1',
};

/**
 * TEST_USER acting in a colleague's account ("Acme") where they hold `role`:
 * answer GET /auth/me with it to see a screen as that role (issue 40).
 */
export function testUserAs(role: Role) {
  return {
    ...TEST_USER,
    accounts: [...TEST_USER.accounts, { id: 'account-acme', name: 'Acme', role }],
    currentAccountId: 'account-acme',
  };
}
