import { me, type Me, type User } from '@engram/shared';
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../api-client';

/**
 * The signed-in person as the session holds them: `GET /auth/me` adds the
 * accounts they belong to and the one the app acts in (issue 40); right
 * after signing in, the login's own answer stands in without them until
 * /auth/me has answered.
 */
export type SessionUser = User & Partial<Pick<Me, 'accounts' | 'currentAccountId'>>;

/**
 * GET /auth/me, in the chosen account (its `apiKey` is the person's key
 * there). A 401 here means "stored token is stale": the caller clears it
 * quietly (docs/product.md, States). A chosen account the person was removed
 * from answers 404 "Account not found": the API client forgets it, and the
 * person's own account is read instead.
 */
export async function getCurrentUser(token: string): Promise<Me> {
  try {
    return await apiRequest('/auth/me', { schema: me, token, signOutOnUnauthorized: false });
  } catch (error) {
    if (!(error instanceof ApiError && error.isAccountGone)) throw error;
    return apiRequest('/auth/me', {
      schema: me,
      token,
      signOutOnUnauthorized: false,
      account: null,
    });
  }
}

/**
 * The prefix of every current-user query: invalidating it reads the person
 * again (their role, their accounts, their key) whatever the token and account.
 */
export const CURRENT_USER_KEY = ['session', 'current-user'] as const;

/** The session's query: one per token and account, so a switch reads the person again. */
export const currentUserKey = (token: string | null, accountId: string | null) =>
  [...CURRENT_USER_KEY, token, accountId] as const;

export function currentUserQueryOptions(token: string, accountId: string | null) {
  return queryOptions<SessionUser>({
    queryKey: currentUserKey(token, accountId),
    queryFn: () => getCurrentUser(token),
    staleTime: Infinity,
    retry: false,
  });
}
