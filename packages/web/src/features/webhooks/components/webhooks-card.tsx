import type { CreatedWebhook, RotatedWebhookSecret, Webhook } from '@engram/shared';
import { Plus } from 'lucide-react';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { LoadingBlock } from '@/components/ui/spinner';
import { useWebhookLimit } from '../api/get-webhook-limit';
import { useWebhooks } from '../api/list-webhooks';
import { atLimit, errorMessage, limitLabel } from '../webhook-display';
import { DeleteWebhookDialog } from './delete-webhook-dialog';
import { NewSecretBanner, type NewSecret } from './new-secret-banner';
import { RotateSecretDialog } from './rotate-secret-dialog';
import { CreateWebhookDialog, EditWebhookDialog } from './webhook-dialog';
import { WebhookItem } from './webhook-item';

/**
 * The account's outbound webhooks (Settings → Webhooks): its endpoints with
 * their state and deliveries log, within the plan's number of endpoints.
 */
export function WebhooksCard() {
  const titleId = useId();
  const webhooks = useWebhooks();
  const plan = useWebhookLimit();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [newSecret, setNewSecret] = useState<NewSecret | null>(null);

  const list = webhooks.data;
  const limit = plan.data?.limit;
  // The Free plan has none: a quiet note instead of the form (an endpoint left from a paid plan still shows).
  const notIncluded = limit === 0;
  const full = list !== undefined && atLimit(list.length, limit);

  function handleCreated(created: CreatedWebhook) {
    setCreating(false);
    setNewSecret({ webhookId: created.id, url: created.url, secret: created.secret });
  }

  function handleRotated(rotated: RotatedWebhookSecret, webhook: Webhook) {
    setRotating(null);
    setNewSecret({
      webhookId: webhook.id,
      url: webhook.url,
      secret: rotated.secret,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt,
    });
  }

  function handleDeleted(deleted: Webhook) {
    setDeleting(null);
    // A secret for an endpoint that no longer exists is no use to copy.
    setNewSecret((shown) => (shown?.webhookId === deleted.id ? null : shown));
    toast.success('Endpoint deleted');
  }

  return (
    <>
      {newSecret ? (
        <NewSecretBanner newSecret={newSecret} onDismiss={() => setNewSecret(null)} />
      ) : null}
      <Card role="region" aria-labelledby={titleId}>
        <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3 max-sm:p-4">
          <div className="min-w-0 flex-1 basis-64">
            <CardTitle id={titleId}>Webhooks</CardTitle>
            <CardDescription>
              Engram POSTs each change to your graph to these URLs as signed JSON, as it happens.
            </CardDescription>
          </div>
          <div className="flex items-center gap-3">
            {list && limit !== undefined && !notIncluded ? (
              <span
                data-testid="webhook-limit"
                className="text-xs text-muted-foreground tabular-nums"
              >
                {limitLabel(list.length, limit)}
              </span>
            ) : null}
            {notIncluded ? null : (
              <Button
                size="sm"
                disabled={!list || full}
                title={full ? 'Your plan has no room for another endpoint' : undefined}
                onClick={() => setCreating(true)}
              >
                <Plus aria-hidden />
                Add endpoint
              </Button>
            )}
          </div>
        </CardHeader>
        <CardContent className="grid grid-cols-1 gap-3 max-sm:px-4 max-sm:pb-4">
          {notIncluded ? (
            <p
              data-testid="webhooks-plan-note"
              className="rounded-lg border border-dashed border-border px-4 py-5 text-center text-sm text-muted-foreground"
            >
              Your {plan.data?.planName ?? 'current'} plan does not include webhooks.{' '}
              <Link
                to="/pricing"
                className="font-medium text-primary underline-offset-4 hover:underline"
              >
                Compare plans
              </Link>{' '}
              to send your graph&apos;s changes to your own endpoints.
            </p>
          ) : null}
          {full && !notIncluded ? (
            <p className="text-xs text-muted-foreground">
              Every endpoint your plan allows is in use. Delete one or{' '}
              <Link
                to="/pricing"
                className="font-medium text-primary underline-offset-4 hover:underline"
              >
                upgrade your plan
              </Link>{' '}
              to add another.
            </p>
          ) : null}
          {webhooks.isPending ? (
            <LoadingBlock label="Loading webhooks…" />
          ) : webhooks.isError ? (
            <LoadErrorAlert onRetry={() => void webhooks.refetch()}>
              {errorMessage(webhooks.error, 'Failed to load webhooks')}
            </LoadErrorAlert>
          ) : list && list.length > 0 ? (
            <ul
              aria-label="Endpoints"
              className="divide-y divide-border rounded-lg border border-border"
            >
              {list.map((webhook) => (
                <WebhookItem
                  key={webhook.id}
                  webhook={webhook}
                  onEdit={setEditing}
                  onRotate={setRotating}
                  onDelete={setDeleting}
                />
              ))}
            </ul>
          ) : notIncluded ? null : (
            <p className="rounded-lg border border-dashed border-border px-4 py-6 text-center text-sm text-muted-foreground">
              No endpoints yet. Add one to hear about new entities, observations and relations.
            </p>
          )}
        </CardContent>
      </Card>
      <CreateWebhookDialog open={creating} onOpenChange={setCreating} onCreated={handleCreated} />
      <EditWebhookDialog
        webhook={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          toast.success('Endpoint saved');
        }}
      />
      <RotateSecretDialog
        webhook={rotating}
        onClose={() => setRotating(null)}
        onRotated={handleRotated}
      />
      <DeleteWebhookDialog
        webhook={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={handleDeleted}
      />
    </>
  );
}
