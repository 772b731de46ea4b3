import { SettingsLayout } from '@/components/settings-layout';
import { useSession } from '@/lib/session';
import { ConnectedAppsCard } from './connected-apps-card';
import { DeleteAccountCard } from './delete-account-card';
import { PasswordForm } from './password-form';
import { PersonalKeyCard } from './personal-key-card';
import { ProfileForm } from './profile-form';

export function SettingsPage() {
  const { user } = useSession();
  return (
    <SettingsLayout>
      {/* The signed-in guard guarantees a user; keyed so a new profile resets the form. */}
      {user ? <ProfileForm key={user.id} user={user} /> : null}
      <PasswordForm />
      {user ? <PersonalKeyCard user={user} /> : null}
      <ConnectedAppsCard />
      {user ? <DeleteAccountCard user={user} /> : null}
    </SettingsLayout>
  );
}
