import { PageHeader } from '@/components/page-header';
import { SettingsTabs } from '@/components/settings-tabs';
import { useSession } from '@/lib/session';
import { ConnectedAppsCard } from './connected-apps-card';
import { DeleteAccountCard } from './delete-account-card';
import { PasswordForm } from './password-form';
import { PersonalKeyCard } from './personal-key-card';
import { ProfileForm } from './profile-form';

export function SettingsPage() {
  const { user } = useSession();
  return (
    <div className="grid gap-6">
      <title>Settings · Engram</title>
      <PageHeader
        title="Settings"
        description="Manage your profile, password, personal API key, connected apps and account"
      />
      <SettingsTabs />
      <div className="grid max-w-3xl gap-6">
        {/* The signed-in guard guarantees a user; keyed so a new profile resets the form. */}
        {user ? <ProfileForm key={user.id} user={user} /> : null}
        <PasswordForm />
        {user ? <PersonalKeyCard user={user} /> : null}
        <ConnectedAppsCard />
        {user ? <DeleteAccountCard user={user} /> : null}
      </div>
    </div>
  );
}
