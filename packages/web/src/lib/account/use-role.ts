import type { Role } from '@engram/shared';
import { useSession } from '../session';
import { can, type RoleAction } from './role-rules';

/**
 * The signed-in person's role in the account the app acts in (`GET
 * /auth/me`); null until it has answered, when the screens offer everything
 * and the server decides.
 */
export function useRole(): Role | null {
  const { user } = useSession();
  return user?.accounts?.find((account) => account.id === user.currentAccountId)?.role ?? null;
}

/** Whether the screens offer `action` to the person here (role-rules.ts). */
export function useCan(action: RoleAction): boolean {
  return can(useRole(), action);
}
