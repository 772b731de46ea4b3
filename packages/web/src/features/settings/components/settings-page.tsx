import { PageHeader } from '@/components/page-header';
import { useSession } from '@/lib/session';
import { PasswordForm } from './password-form';
import { ProfileForm } from './profile-form';

export function SettingsPage() {
  const { user } = useSession();
  return (
    <div className="grid gap-6">
      <title>Settings · Engram</title>
      <PageHeader title="Settings" description="Manage your profile and password" />
      <div className="grid max-w-3xl gap-6">
        {/* The signed-in guard guarantees a user; keyed so a new profile resets the form. */}
        {user ? <ProfileForm key={user.id} user={user} /> : null}
        <PasswordForm />
      </div>
    </div>
  );
}
