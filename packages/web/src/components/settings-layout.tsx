import type { ReactNode } from 'react';
import { PageHeader } from '@/components/page-header';
import { SettingsTabs } from '@/components/settings-tabs';
import { cn } from '@/lib/cn';

/**
 * A Settings screen: its title, Settings' heading and tabs, then the section's
 * cards in one column (3xl wide, or 5xl for the lists of people and endpoints).
 */
export function SettingsLayout({
  section,
  wide = false,
  children,
}: {
  /** The section's name in the document title ('Members'); none for Account. */
  section?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    // grid-cols-1 (minmax(0, 1fr)): a long email, URL or name wraps or truncates instead of widening the page on a phone.
    <div className="grid grid-cols-1 gap-6">
      <title>{section ? `${section} · Settings · Engram` : 'Settings · Engram'}</title>
      <PageHeader
        title="Settings"
        description="Manage your profile, password, personal API key, connected apps and account"
      />
      <SettingsTabs />
      <div className={cn('grid grid-cols-1 gap-6', wide ? 'max-w-5xl' : 'max-w-3xl')}>
        {children}
      </div>
    </div>
  );
}
