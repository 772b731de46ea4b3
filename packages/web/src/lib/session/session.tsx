import type { AuthResponse, User } from '@engram/shared';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  use,
  useCallback,
  useEffect,
  useMemo,
  useState,
  type ReactNode,
} from 'react';
import { useNavigate } from 'react-router';
import { setUnauthorizedHandler } from '../api-client';
import { clearAuthToken, readAuthToken, storeAuthToken } from '../auth-token';
import { currentUserKey, currentUserQueryOptions } from './current-user';
import { logout } from './logout';

/**
 * 'checking' lasts from start-up until the stored token is confirmed or
 * dropped (docs/product.md, States); guards show the loading screen meanwhile.
 */
export type SessionStatus = 'checking' | 'anonymous' | 'authenticated';

interface SessionValue {
  status: SessionStatus;
  user: User | null;
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
  /** Replaces the cached profile after the user edits it. */
  replaceUser: (user: User) => void;
}

const SessionContext = createContext<SessionValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [token, setToken] = useState<string | null>(readAuthToken);
  const [leaveTo, setLeaveTo] = useState<string | null>(null);
  const currentUser = useQuery({
    ...currentUserQueryOptions(token ?? ''),
    enabled: token !== null,
  });

  // A stored token the server no longer accepts is dropped silently (docs/product.md, States).
  const storedTokenRejected = token !== null && currentUser.isError;
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
        setToken(null);
        queryClient.clear();
        void navigate('/login', { replace: true });
      }),
    [navigate, queryClient],
  );

  const signIn = useCallback(
    (auth: AuthResponse) => {
      storeAuthToken(auth.token);
      queryClient.setQueryData(currentUserKey(auth.token), auth.user);
      setLeaveTo(null);
      setToken(auth.token);
    },
    [queryClient],
  );

  const signOut = useCallback(
    async (to?: string) => {
      const revoked = token;
      clearAuthToken();
      setLeaveTo(to ?? null);
      setToken(null);
      queryClient.clear();
      if (revoked) await logout(revoked).catch(() => undefined);
    },
    [queryClient, token],
  );

  const replaceUser = useCallback(
    (updated: User) => queryClient.setQueryData(currentUserKey(token), updated),
    [queryClient, token],
  );

  const value = useMemo<SessionValue>(() => {
    let status: SessionStatus = 'checking';
    if (token === null || storedTokenRejected) status = 'anonymous';
    else if (currentUser.isSuccess) status = 'authenticated';
    return {
      status,
      user: status === 'authenticated' ? (currentUser.data ?? null) : null,
      signIn,
      signOut,
      leaveTo,
      replaceUser,
    };
  }, [
    leaveTo,
    token,
    storedTokenRejected,
    currentUser.isSuccess,
    currentUser.data,
    signIn,
    signOut,
    replaceUser,
  ]);

  return <SessionContext value={value}>{children}</SessionContext>;
}

export function useSession(): SessionValue {
  const session = use(SessionContext);
  if (!session) throw new Error('useSession must be used inside <SessionProvider>');
  return session;
}
