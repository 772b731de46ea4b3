import type { ReactNode } from 'react';
import { CenteredLayout } from '@/components/centered-layout';

/**
 * The consent screen's frame: a centred card like the sign-in pages, outside
 * the app's navigation, so nothing competes with the one question asked.
 */
export function ConsentLayout({ children }: { children: ReactNode }) {
  return <CenteredLayout>{children}</CenteredLayout>;
}
