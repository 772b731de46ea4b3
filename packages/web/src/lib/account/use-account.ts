import type { AccountMembership, Role } from '@engram/shared';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useSession } from '../session';
import { DEFAULT_SPACE_CHOSEN } from '../space';
import { readAccountId, storeAccountId, subscribeToAccountId } from './account-store';

export interface AccountValue {
  /** The accounts the person belongs to; empty until /auth/me has answered. */
  accounts: AccountMembership[];
  /** The account the app acts in, once /auth/me has named it. */
  current: AccountMembership | null;
  /** The person's role there (null until known: the server still decides). */
  role: Role | null;
  /**
   * Acts in another account (null: the person's own): nothing read in the
   * previous one stays (the cache is emptied and the person read again), the
   * default space is shown, and the app goes to `to` (else the same screen;
   * from one entity's page, the list).
   */
  switchTo: (accountId: string | null, to?: string) => void;
}

/** The chosen account's id as React state (null: the person's own account). */
export function useAccountId(): string | null {
  return useSyncExternalStore(subscribeToAccountId, readAccountId);
}

/** The account the signed-in app acts in, the others the person belongs to, and the way to switch. */
export function useAccount(): AccountValue {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const accounts = user?.accounts ?? [];
  const current = accounts.find((account) => account.id === user?.currentAccountId) ?? null;

  const switchTo = useCallback(
    (accountId: string | null, to?: string) => {
      if (accountId === readAccountId()) {
        // The same account (e.g. after a role changed): read everything again.
        void queryClient.invalidateQueries();
      } else {
        // The person's query is keyed by account, so the session reads them there afresh.
        void queryClient.cancelQueries();
        queryClient.clear();
        storeAccountId(accountId);
      }
      // An entity belongs to one account's graph: in another, its page would only say "Entity not found".
      const target = to ?? (/^\/entities\/[^/]+/.test(pathname) ? '/entities' : pathname);
      void navigate(target, { state: DEFAULT_SPACE_CHOSEN });
    },
    [navigate, pathname, queryClient],
  );

  return { accounts, current, role: current?.role ?? null, switchTo };
}
