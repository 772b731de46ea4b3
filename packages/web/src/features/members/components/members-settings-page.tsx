import { PageHeader } from '@/components/page-header';
import { SettingsTabs } from '@/components/settings-tabs';
import { MembersCard } from './members-card';

/** Settings → Members (/settings/members): the people of the account acted in, and invitations. */
export function MembersSettingsPage() {
  return (
    // grid-cols-1 (minmax(0, 1fr)): a long email wraps instead of widening the page on a phone.
    <div className="grid grid-cols-1 gap-6">
      <title>Members · Settings · Engram</title>
      <PageHeader
        title="Settings"
        description="Manage your profile, password, personal API key, connected apps and account"
      />
      <SettingsTabs />
      <div className="grid max-w-5xl grid-cols-1 gap-6">
        <MembersCard />
      </div>
    </div>
  );
}
