import { SettingsLayout } from '@/components/settings-layout';
import { SpacesCard } from './spaces-card';

/** Settings → Spaces (/settings/spaces): the account's memory spaces. */
export function SpacesSettingsPage() {
  return (
    <SettingsLayout section="Spaces">
      <SpacesCard />
    </SettingsLayout>
  );
}
