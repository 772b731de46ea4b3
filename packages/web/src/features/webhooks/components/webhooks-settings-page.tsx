import { PageHeader } from '@/components/page-header';
import { SettingsTabs } from '@/components/settings-tabs';
import { WebhooksCard } from './webhooks-card';

/** Settings → Webhooks (/settings/webhooks): the account's outbound webhook endpoints. */
export function WebhooksSettingsPage() {
  return (
    // grid-cols-1 (minmax(0, 1fr)): a long URL wraps instead of widening the page on a phone.
    <div className="grid grid-cols-1 gap-6">
      <title>Webhooks · Settings · Engram</title>
      <PageHeader
        title="Settings"
        description="Manage your profile, password, personal API key, connected apps and account"
      />
      <SettingsTabs />
      <div className="grid max-w-5xl grid-cols-1 gap-6">
        <WebhooksCard />
      </div>
    </div>
  );
}
