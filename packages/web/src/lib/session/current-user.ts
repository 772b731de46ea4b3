import { user, type User } from '@engram/shared';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../api-client';

/** GET /auth/me. A 401 here means "stored token is stale": the caller clears it quietly (docs/product.md, States). */
export function getCurrentUser(token: string): Promise<User> {
  return apiRequest('/auth/me', { schema: user, token, signOutOnUnauthorized: false });
}

export const currentUserKey = (token: string | null) => ['session', 'current-user', token] as const;

export function currentUserQueryOptions(token: string) {
  return queryOptions({
    queryKey: currentUserKey(token),
    queryFn: () => getCurrentUser(token),
    staleTime: Infinity,
    retry: false,
  });
}
