import { Navigate, Outlet, useLocation, type Location } from 'react-router';
import { INVITATION_PATH, readPendingInvitation } from '@/lib/account';
import { useSession } from '@/lib/session';
import { LoadingScreen } from './loading-screen';

/** Where RequireSession remembers the page a visitor asked for before signing in. */
interface ReturnState {
  from?: Location;
}

/** Signed-in routes: visitors go to /login (docs/product.md, The signed-in app), then come back here. */
export function RequireSession() {
  const { status, leaveTo } = useSession();
  const location = useLocation();
  if (status === 'checking') return <LoadingScreen />;
  if (status === 'anonymous') {
    // A sign-out that named its way out (deleting the account) goes there.
    if (leaveTo) return <Navigate to={leaveTo} replace />;
    return <Navigate to="/login" replace state={{ from: location } satisfies ReturnState} />;
  }
  return <Outlet />;
}

/**
 * /login and /signup: signed-in users go to /dashboard, or back where they
 * were headed, or to an invitation opened before signing in in this tab.
 */
export function GuestOnly() {
  const { status } = useSession();
  const location = useLocation();
  if (status === 'checking') return <LoadingScreen />;
  if (status === 'authenticated') {
    const from = (location.state as ReturnState | null)?.from;
    const fallback = readPendingInvitation() ? INVITATION_PATH : '/dashboard';
    const target = from ? `${from.pathname}${from.search}${from.hash}` : fallback;
    return <Navigate to={target} replace />;
  }
  return <Outlet />;
}

/**
 * Unknown paths (docs/product.md, Public pages): to /dashboard when signed in,
 * otherwise to the landing page: only protected paths send a visitor to /login
 * (packages/web/README.md, "Unknown paths").
 */
export function UnknownRoute() {
  const { status } = useSession();
  if (status === 'checking') return <LoadingScreen />;
  return <Navigate to={status === 'authenticated' ? '/dashboard' : '/'} replace />;
}
