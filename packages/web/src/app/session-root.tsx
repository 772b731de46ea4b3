import { Outlet, ScrollRestoration } from 'react-router';
import { CheckoutReturnNotice } from '@/components/checkout-return-notice';
import { DialogBackGuard } from '@/components/dialog-back-guard';
import { SessionProvider } from '@/lib/session';

/** The session lives inside the router so a 401 can navigate to /login in-app. */
export function SessionRoot() {
  return (
    <SessionProvider>
      <ScrollRestoration />
      <CheckoutReturnNotice />
      <DialogBackGuard />
      <Outlet />
    </SessionProvider>
  );
}
