import { Outlet } from 'react-router';
import { BrandLogo } from '@/components/brand-logo';
import { RealtimeProvider } from '@/lib/realtime';
import { MainNav } from './main-nav';
import { MobileNav } from './mobile-nav';
import { RealtimeNotifications, RealtimeStatusBadge } from './realtime-status';
import { UserMenu } from './user-menu';

/**
 * The signed-in frame: top navigation, connection status, account menu, page,
 * live notifications. The realtime connection lives here, so it is open
 * exactly while a signed-in screen is shown and survives moving between them.
 */
export function AppShell() {
  return (
    <RealtimeProvider>
      <div className="flex min-h-dvh flex-col bg-surface">
        <header className="sticky top-0 z-40 border-b border-border bg-background/90 backdrop-blur supports-[backdrop-filter]:bg-background/75">
          <div className="mx-auto flex h-14 max-w-7xl items-center gap-2 px-4 sm:px-6">
            <MobileNav />
            <BrandLogo to="/dashboard" className="mr-4" />
            <MainNav />
            <div className="ml-auto flex items-center gap-2">
              <RealtimeStatusBadge />
              <UserMenu />
            </div>
          </div>
        </header>
        <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 sm:py-8">
          <Outlet />
        </main>
      </div>
      <RealtimeNotifications />
    </RealtimeProvider>
  );
}
