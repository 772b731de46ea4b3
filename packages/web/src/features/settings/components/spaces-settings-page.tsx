import { PageHeader } from '@/components/page-header';
import { SettingsTabs } from '@/components/settings-tabs';
import { SpacesCard } from './spaces-card';

/** Settings → Spaces (/settings/spaces): the account's memory spaces. */
export function SpacesSettingsPage() {
  return (
    // grid-cols-1 (minmax(0, 1fr)): a long space name truncates instead of widening the page on a phone.
    <div className="grid grid-cols-1 gap-6">
      <title>Spaces · Settings · Engram</title>
      <PageHeader
        title="Settings"
        description="Manage your profile, password, personal API key, connected apps and account"
      />
      <SettingsTabs />
      <div className="grid max-w-3xl grid-cols-1 gap-6">
        <SpacesCard />
      </div>
    </div>
  );
}
