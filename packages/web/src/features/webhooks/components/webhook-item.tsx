import type { Webhook } from '@engram/shared';
import {
  ChevronDown,
  CircleAlert,
  Ellipsis,
  KeyRound,
  Pencil,
  Power,
  PowerOff,
  Send,
  Trash2,
  TriangleAlert,
  Webhook as WebhookIcon,
} from 'lucide-react';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { Badge } from '@/components/ui/badge';
import { ActionsMenu } from '@/components/actions-menu';
import { Button } from '@/components/ui/button';
import { DropdownMenuItem, DropdownMenuSeparator } from '@/components/ui/dropdown-menu';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { formatDate, formatDateTime } from '@/lib/format';
import { useTestWebhook } from '../api/test-webhook';
import { useUpdateWebhook } from '../api/update-webhook';
import {
  ENDPOINT_BADGE,
  endpointState,
  errorMessage,
  eventsLabel,
  sentSummary,
} from '../webhook-display';
import { DeliveriesLog } from './deliveries-log';

interface WebhookItemProps {
  webhook: Webhook;
  onEdit: (webhook: Webhook) => void;
  onRotate: (webhook: Webhook) => void;
  onDelete: (webhook: Webhook) => void;
}

const ICON_TONE = {
  active: 'bg-primary-soft text-primary-soft-foreground',
  failing: 'bg-warning-soft text-warning-soft-foreground',
  disabled: 'bg-muted text-muted-foreground',
  'turned-off': 'bg-destructive-soft text-destructive-soft-foreground',
} as const;

/**
 * One endpoint in the list: where it sends, what it hears, how it stands,
 * and its actions; its deliveries log opens under it.
 */
export function WebhookItem({ webhook, onEdit, onRotate, onDelete }: WebhookItemProps) {
  const titleId = useId();
  const logId = useId();
  const [logOpen, setLogOpen] = useState(false);
  const test = useTestWebhook();
  const update = useUpdateWebhook();
  const state = endpointState(webhook);
  const badge = ENDPOINT_BADGE[state];

  function sendTest() {
    // The answer is a row of the log: open it so the person sees where it went.
    setLogOpen(true);
    test.mutate(webhook.id, {
      onSuccess: (delivery) =>
        toast[delivery.status === 'succeeded' ? 'success' : 'error'](
          `Test ${sentSummary(delivery).replace(/^\w/, (first) => first.toLowerCase())}`,
        ),
      onError: (error) => toast.error(errorMessage(error, 'Failed to send a test')),
    });
  }

  function setEnabled(enabled: boolean) {
    update.mutate(
      { id: webhook.id, input: { enabled } },
      {
        onSuccess: () => toast.success(enabled ? 'Endpoint enabled' : 'Endpoint disabled'),
        onError: (error) =>
          toast.error(
            errorMessage(
              error,
              enabled ? 'Failed to enable the endpoint' : 'Failed to disable the endpoint',
            ),
          ),
      },
    );
  }

  return (
    <li>
      <article
        aria-labelledby={titleId}
        data-testid="webhook"
        data-state={state}
        className="grid grid-cols-1 gap-2.5 px-3 py-3 sm:px-4"
      >
        <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
          <div className="flex min-w-0 flex-1 items-start gap-3">
            <div
              className={cn(
                'mt-0.5 hidden size-8 shrink-0 items-center justify-center rounded-md sm:flex',
                ICON_TONE[state],
              )}
            >
              <WebhookIcon className="size-4" aria-hidden />
            </div>
            <div className="grid min-w-0 flex-1 gap-0.5">
              <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
                <h3
                  id={titleId}
                  className="min-w-0 font-mono text-[13px] font-medium wrap-anywhere"
                >
                  {webhook.url}
                </h3>
                <Badge variant={badge.variant} data-testid="webhook-state">
                  {badge.label}
                </Badge>
              </div>
              {webhook.description ? (
                <p className="text-sm wrap-anywhere">{webhook.description}</p>
              ) : null}
              <p className="text-xs text-muted-foreground wrap-anywhere">
                <span className="text-foreground/80">{eventsLabel(webhook.events)}</span>
                {' · '}
                {webhook.space ? (
                  <>
                    space <span className="font-mono text-foreground/80">{webhook.space}</span>
                  </>
                ) : (
                  'all spaces'
                )}
                {' · '}added {formatDate(webhook.createdAt)}
              </p>
            </div>
          </div>
          <div className="flex shrink-0 flex-wrap items-center gap-1.5 sm:justify-end">
            {webhook.enabled ? null : (
              <Button
                variant="outline"
                size="sm"
                aria-describedby={titleId}
                disabled={update.isPending}
                onClick={() => setEnabled(true)}
              >
                {update.isPending ? <Spinner /> : <Power aria-hidden />}
                Enable
              </Button>
            )}
            <Button
              variant="outline"
              size="sm"
              aria-describedby={titleId}
              disabled={test.isPending}
              onClick={sendTest}
            >
              {test.isPending ? <Spinner /> : <Send aria-hidden />}
              Send test
            </Button>
            <Button
              variant="ghost"
              size="sm"
              className="px-2"
              aria-expanded={logOpen}
              aria-controls={logOpen ? logId : undefined}
              aria-describedby={titleId}
              onClick={() => setLogOpen((open) => !open)}
            >
              Deliveries
              <ChevronDown
                aria-hidden
                className={cn('transition-transform', logOpen && 'rotate-180')}
              />
            </Button>
            <ActionsMenu label={`Actions for ${webhook.url}`} icon={<Ellipsis aria-hidden />}>
              <DropdownMenuItem onSelect={() => onEdit(webhook)}>
                <Pencil aria-hidden />
                Edit
              </DropdownMenuItem>
              {webhook.enabled ? (
                <DropdownMenuItem onSelect={() => setEnabled(false)}>
                  <PowerOff aria-hidden />
                  Disable
                </DropdownMenuItem>
              ) : (
                <DropdownMenuItem onSelect={() => setEnabled(true)}>
                  <Power aria-hidden />
                  Enable
                </DropdownMenuItem>
              )}
              <DropdownMenuItem onSelect={() => onRotate(webhook)}>
                <KeyRound aria-hidden />
                Rotate secret
              </DropdownMenuItem>
              <DropdownMenuSeparator />
              <DropdownMenuItem destructive onSelect={() => onDelete(webhook)}>
                <Trash2 aria-hidden />
                Delete
              </DropdownMenuItem>
            </ActionsMenu>
          </div>
        </div>

        {state === 'turned-off' ? (
          <p
            data-testid="webhook-disabled-reason"
            className="flex items-start gap-1.5 rounded-md bg-destructive-soft px-2.5 py-1.5 text-xs text-destructive-soft-foreground sm:ml-11"
          >
            <CircleAlert className="mt-px size-3.5 shrink-0" aria-hidden />
            <span className="min-w-0 wrap-anywhere">
              <span className="font-medium">Turned off by Engram.</span>{' '}
              {sentence(webhook.disabledReason ?? '')} Enable it to send again, from the event after
              the last one it was sent.
            </span>
          </p>
        ) : null}
        {state === 'failing' && webhook.failingSince ? (
          <p
            data-testid="webhook-failing"
            className="flex items-start gap-1.5 rounded-md bg-warning-soft px-2.5 py-1.5 text-xs text-warning-soft-foreground sm:ml-11"
          >
            <TriangleAlert className="mt-px size-3.5 shrink-0" aria-hidden />
            <span className="min-w-0">
              Failing since {formatDateTime(webhook.failingSince)}. Deliveries are retried; after a
              day of failures Engram turns the endpoint off.
            </span>
          </p>
        ) : null}

        {logOpen ? (
          <div id={logId} className="sm:ml-11">
            <DeliveriesLog webhook={webhook} />
          </div>
        ) : null}
      </article>
    </li>
  );
}

/** The server's reason as a sentence (it may end without a full stop). */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
