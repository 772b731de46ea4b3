import { useId } from 'react';
import { PageHeader } from '@/components/page-header';
import { RoleNote } from '@/components/role-note';
import { SettingsTabs } from '@/components/settings-tabs';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { useCan, WEBHOOKS_ADMINS_ONLY } from '@/lib/account';
import { WebhooksCard } from './webhooks-card';

/**
 * Settings → Webhooks (/settings/webhooks): the account's outbound webhook
 * endpoints. Only owners and admins manage them (the server answers 403
 * otherwise): members and viewers get a note, and nothing is asked of the server.
 */
export function WebhooksSettingsPage() {
  const canManage = useCan('manageWebhooks');
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
        {canManage ? <WebhooksCard /> : <WebhooksAdminsOnly />}
      </div>
    </div>
  );
}

/** What a member or viewer sees in place of the endpoints. */
function WebhooksAdminsOnly() {
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader className="max-sm:p-4">
        <CardTitle id={titleId}>Webhooks</CardTitle>
        <CardDescription>
          Engram POSTs each change to the graph to the account’s endpoints as signed JSON, as it
          happens.
        </CardDescription>
      </CardHeader>
      <CardContent className="max-sm:px-4 max-sm:pb-4">
        <RoleNote testId="webhooks-admins-only">{WEBHOOKS_ADMINS_ONLY}</RoleNote>
      </CardContent>
    </Card>
  );
}
