import { useId } from 'react';
import { RoleNote } from '@/components/role-note';
import { SettingsLayout } from '@/components/settings-layout';
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
    <SettingsLayout section="Webhooks" wide>
      {canManage ? <WebhooksCard /> : <WebhooksAdminsOnly />}
    </SettingsLayout>
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
