import { SettingsLayout } from '@/components/settings-layout';
import { MembersCard } from './members-card';

/** Settings → Members (/settings/members): the people of the account acted in, and invitations. */
export function MembersSettingsPage() {
  return (
    <SettingsLayout section="Members" wide>
      <MembersCard />
    </SettingsLayout>
  );
}
