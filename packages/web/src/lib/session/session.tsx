import type { AuthResponse, User } from '@engram/shared';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  use,
  useCallback,
  useEffect,
  useMemo,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { useNavigate } from 'react-router';
import { toast } from 'sonner';
import { forgetAccountId, readAccountId, subscribeToAccountId } from '../account/account-store';
import { ApiError, setAccountGoneHandler, setUnauthorizedHandler } from '../api-client';
import { clearAuthToken, readAuthToken, storeAuthToken } from '../auth-token';
import { currentUserKey, currentUserQueryOptions, type SessionUser } from './current-user';
import { logout } from './logout';

/**
 * 'checking' lasts from start-up until the stored token is confirmed or
 * dropped (docs/product.md, States); guards show the loading screen meanwhile.
 */
export type SessionStatus = 'checking' | 'anonymous' | 'authenticated';

interface SessionValue {
  status: SessionStatus;
  /** With the accounts they belong to once /auth/me has answered (see SessionUser). */
  user: SessionUser | null;
  /** Stores the token from login or register and marks the user signed in. */
  signIn: (auth: AuthResponse) => void;
  /**
   * Revokes the session server-side (best effort) and forgets it locally.
   * `leaveTo` is where a signed-in page sends the now signed-out person
   * (else /login): the guard goes there in the same render the session ends.
   */
  signOut: (leaveTo?: string) => Promise<void>;
  /** Where the last sign-out asked to go, if it named a place. */
  leaveTo: string | null;
  /** Replaces the cached profile after the user edits it (the accounts stay). */
  replaceUser: (user: User) => void;
}

const SessionContext = createContext<SessionValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [token, setToken] = useState<string | null>(readAuthToken);
  const [leaveTo, setLeaveTo] = useState<string | null>(null);
  // The account acted in is part of the person's query: switching reads them again there.
  const accountId = useSyncExternalStore(subscribeToAccountId, readAccountId);
  const currentUser = useQuery({
    ...currentUserQueryOptions(token ?? '', accountId),
    enabled: token !== null,
  });

  // A stored token the server no longer accepts is dropped silently (docs/product.md, States).
  // Once the person is known, only a 401 ends the session: a failed refresh keeps what was read.
  const storedTokenRejected =
    token !== null &&
    currentUser.isError &&
    (currentUser.data === undefined ||
      (currentUser.error instanceof ApiError && currentUser.error.status === 401));
  useEffect(() => {
    if (storedTokenRejected) {
      clearAuthToken();
      // Storage and state change together, once, after the failed check: not a render cascade.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setToken(null);
    }
  }, [storedTokenRejected]);

  // Any other call answered 401: the api client already cleared the token.
  useEffect(
    () =>
      setUnauthorizedHandler(() => {
        forgetAccountId();
        setToken(null);
        queryClient.clear();
        void navigate('/login', { replace: true });
      }),
    [navigate, queryClient],
  );

  // The chosen account answered "Account not found" (the person was removed
  // from it): the API client forgot it; nothing read there may stay on screen.
  useEffect(
    () =>
      setAccountGoneHandler(() => {
        void queryClient.cancelQueries();
        queryClient.clear();
        toast.info('You no longer have access to that account', {
          description: 'Showing your own account instead.',
        });
      }),
    [queryClient],
  );

  const signIn = useCallback(
    (auth: AuthResponse) => {
      // A new sign-in starts in the person's own account.
      forgetAccountId();
      storeAuthToken(auth.token);
      const key = currentUserKey(auth.token, null);
      queryClient.setQueryData<SessionUser>(key, auth.user);
      // The login's answer stands in until /auth/me adds the person's accounts.
      void queryClient.invalidateQueries({ queryKey: key, refetchType: 'none' });
      setLeaveTo(null);
      setToken(auth.token);
    },
    [queryClient],
  );

  const signOut = useCallback(
    async (to?: string) => {
      const revoked = token;
      clearAuthToken();
      forgetAccountId();
      setLeaveTo(to ?? null);
      setToken(null);
      queryClient.clear();
      if (revoked) await logout(revoked).catch(() => undefined);
    },
    [queryClient, token],
  );

  const replaceUser = useCallback(
    (updated: User) =>
      queryClient.setQueryData<SessionUser>(currentUserKey(token, accountId), (previous) => ({
        ...previous,
        ...updated,
      })),
    [queryClient, token, accountId],
  );

  const value = useMemo<SessionValue>(() => {
    let status: SessionStatus = 'checking';
    if (token === null || storedTokenRejected) status = 'anonymous';
    else if (currentUser.data !== undefined) status = 'authenticated';
    return {
      status,
      user: status === 'authenticated' ? (currentUser.data ?? null) : null,
      signIn,
      signOut,
      leaveTo,
      replaceUser,
    };
  }, [leaveTo, token, storedTokenRejected, currentUser.data, signIn, signOut, replaceUser]);

  return <SessionContext value={value}>{children}</SessionContext>;
}

export function useSession(): SessionValue {
  const session = use(SessionContext);
  if (!session) throw new Error('useSession must be used inside <SessionProvider>');
  return session;
}
