import { Outlet } from 'react-router';
import { BrandLogo } from '@/components/brand-logo';
import { RealtimeProvider } from '@/lib/realtime';
import { SpaceProvider, useSpace } from '@/lib/space';
import { AccountSwitcher } from './account-switcher';
import { HeaderSearch } from './header-search';
import { MainNav } from './main-nav';
import { MobileNav } from './mobile-nav';
import { RealtimeNotifications, RealtimeStatusBadge } from './realtime-status';
import { SpaceSwitcher } from './space-switcher';
import { UserMenu } from './user-menu';

/**
 * The signed-in frame: top navigation, the account and memory space shown,
 * connection status, user menu, page, live notifications. The realtime connection lives here, so it is open
 * exactly while a signed-in screen is shown and survives moving between them;
 * so does the memory space shown (`?space=`), which every screen inside reads.
 */
export function AppShell() {
  return (
    <SpaceProvider>
      <ShellFrame />
    </SpaceProvider>
  );
}

function ShellFrame() {
  const { linkTo } = useSpace();
  return (
    <RealtimeProvider>
      <div className="flex min-h-dvh flex-col bg-surface">
        <header className="sticky top-0 z-40 border-b border-border bg-background/90 backdrop-blur supports-[backdrop-filter]:bg-background/75">
          <div className="mx-auto flex h-14 max-w-7xl items-center gap-2 px-4 sm:px-6">
            <MobileNav />
            {/* On a phone the mark alone: the space switcher needs the room. */}
            <BrandLogo
              to={linkTo('/dashboard')}
              className="mr-1 shrink-0 sm:mr-4 [&>span]:sr-only sm:[&>span]:not-sr-only"
            />
            <MainNav />
            {/* Below md the mobile menu holds the search field; below xl it is a magnifier that widens when focused. */}
            <HeaderSearch
              shortcut
              className="ml-2 hidden w-9 shrink-0 transition-[width] focus-within:w-48 md:block xl:w-56"
            />
            <div className="ml-auto flex min-w-0 items-center gap-2">
              <AccountSwitcher />
              <SpaceSwitcher />
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
