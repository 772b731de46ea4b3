import type { ReactNode } from 'react';
import type { To } from 'react-router';
import { BrandLogo } from '@/components/brand-logo';

/**
 * A centred card like the sign-in pages, outside the app's navigation, so
 * nothing competes with the one question asked (an app's consent, an
 * invitation). `home` is where the logo leads.
 */
export function CenteredLayout({
  children,
  home = '/dashboard',
}: {
  children: ReactNode;
  home?: To;
}) {
  return (
    <div className="flex min-h-dvh flex-col bg-surface">
      <header className="mx-auto flex h-14 w-full max-w-6xl items-center px-4 sm:px-6">
        <BrandLogo to={home} />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pt-6 pb-16 sm:items-center sm:pt-0">
        <div className="w-full max-w-md">{children}</div>
      </main>
    </div>
  );
}
