import type { Webhook, WebhookDelivery } from '@engram/shared';
import { RefreshCw, RotateCcw } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { toast } from 'sonner';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { LoadMoreButton } from '@/components/load-more';
import { LoadingBlock, Spinner } from '@/components/ui/spinner';
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeadRow,
  TableRow,
} from '@/components/ui/table';
import { cn } from '@/lib/cn';
import { webhookKeys } from '@/lib/api/keys';
import { useDeliveries } from '../api/list-deliveries';
import { useRedeliver } from '../api/redeliver';
import {
  DELIVERY_BADGE,
  errorMessage,
  formatDuration,
  formatLogTime,
  formatNextRetry,
  sentSummary,
} from '../webhook-display';

/**
 * One endpoint's deliveries, newest first, a page at a time: what was sent,
 * how it went, when it is tried again; any of them can be sent again.
 */
export function DeliveriesLog({ webhook }: { webhook: Webhook }) {
  const titleId = useId();
  const pages = useDeliveries(webhook.id);
  const redeliver = useRedeliver(webhook.id);
  const queryClient = useQueryClient();
  const deliveries = pages.data?.pages.flatMap((page) => page.deliveries) ?? [];

  function send(delivery: WebhookDelivery) {
    redeliver.mutate(delivery.id, {
      onSuccess: (sent) =>
        toast[sent.status === 'succeeded' ? 'success' : 'error'](sentSummary(sent)),
      onError: (error) => toast.error(errorMessage(error, 'Failed to redeliver')),
    });
  }

  return (
    <section aria-labelledby={titleId} className="grid grid-cols-1 gap-2">
      <div className="flex items-center justify-between gap-2">
        <h4
          id={titleId}
          className="text-xs font-medium tracking-wide text-muted-foreground uppercase"
        >
          Deliveries
        </h4>
        <Button
          variant="ghost"
          size="sm"
          className="h-7 px-2 text-xs"
          disabled={pages.isFetching}
          onClick={() => {
            void pages.refetch();
            // The endpoint's state (failing, turned off) moves with its deliveries.
            void queryClient.invalidateQueries({ queryKey: webhookKeys.list });
          }}
        >
          <RefreshCw
            aria-hidden
            className={cn(
              'size-3.5!',
              pages.isRefetching && !pages.isFetchingNextPage && 'animate-spin',
            )}
          />
          Refresh
        </Button>
      </div>
      {pages.isPending ? (
        <LoadingBlock label="Loading deliveries…" className="py-4" />
      ) : pages.isError && !pages.data ? (
        <LoadErrorAlert onRetry={() => void pages.refetch()}>
          {errorMessage(pages.error, 'Failed to load deliveries')}
        </LoadErrorAlert>
      ) : deliveries.length === 0 ? (
        <p className="rounded-md border border-dashed border-border px-3 py-4 text-center text-xs text-muted-foreground">
          Nothing sent yet. Send a test, or change something in your graph.
        </p>
      ) : (
        <div className="rounded-md border border-border bg-card">
          <Table aria-label={`Deliveries to ${webhook.url}`} className="text-xs max-sm:block">
            <TableHeadRow className="max-sm:hidden">
              <TableHead className="h-8 px-3">Event</TableHead>
              <TableHead className="h-8 px-3">Status</TableHead>
              <TableHead className="h-8 px-3 text-right">Code</TableHead>
              <TableHead className="h-8 px-3 text-right">Duration</TableHead>
              <TableHead className="h-8 px-3 text-right">Attempt</TableHead>
              <TableHead className="h-8 px-3">Next retry</TableHead>
              <TableHead className="h-8 px-3">Time</TableHead>
              <TableHead className="h-8 px-3">
                <span className="sr-only">Actions</span>
              </TableHead>
            </TableHeadRow>
            <TableBody className="max-sm:block">
              {deliveries.map((delivery) => (
                <DeliveryRow
                  key={delivery.id}
                  delivery={delivery}
                  sending={redeliver.isPending && redeliver.variables === delivery.id}
                  onRedeliver={send}
                />
              ))}
            </TableBody>
          </Table>
        </div>
      )}
      {pages.hasNextPage ? (
        <div className="flex justify-center">
          <LoadMoreButton pages={pages} size="sm" />
        </div>
      ) : null}
    </section>
  );
}

function DeliveryRow({
  delivery,
  sending,
  onRedeliver,
}: {
  delivery: WebhookDelivery;
  sending: boolean;
  onRedeliver: (delivery: WebhookDelivery) => void;
}) {
  const badge = DELIVERY_BADGE[delivery.status];
  const note = deliveryNote(delivery);
  return (
    // Below `sm` a row is two lines (event, status and Redeliver; then its figures), not eight columns.
    <TableRow
      data-testid="delivery"
      data-status={delivery.status}
      className="max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-3 max-sm:gap-y-1 max-sm:px-3 max-sm:py-2"
    >
      <TableCell className={cn(CELL, 'max-w-60 max-sm:order-1 max-sm:w-[calc(100%-8.5rem)]')}>
        <div className="flex items-center gap-1.5 whitespace-nowrap">
          <span className="truncate font-mono text-foreground" title={delivery.event}>
            {delivery.event}
          </span>
          {delivery.manual && delivery.event !== 'ping' ? (
            <span className="text-muted-foreground" title="Sent again by hand">
              <span aria-hidden>· </span>resent
            </span>
          ) : null}
        </div>
        {note ? (
          <p
            className={cn(
              'mt-0.5 truncate',
              note.error ? 'text-destructive-soft-foreground' : 'text-muted-foreground',
            )}
            title={note.text}
            data-testid="delivery-note"
          >
            {note.text}
          </p>
        ) : null}
      </TableCell>
      <TableCell className={cn(CELL, 'max-sm:order-2 max-sm:ml-auto')}>
        <Badge variant={badge.variant}>{badge.label}</Badge>
      </TableCell>
      <TableCell
        className={cn(
          FIGURE,
          'text-right font-mono',
          delivery.statusCode === null && 'max-sm:hidden',
        )}
      >
        <span className="sm:hidden">HTTP </span>
        <span>{delivery.statusCode ?? '—'}</span>
      </TableCell>
      <TableCell
        className={cn(FIGURE, 'text-right', delivery.durationMs === null && 'max-sm:hidden')}
      >
        {formatDuration(delivery.durationMs)}
      </TableCell>
      <TableCell className={cn(FIGURE, 'text-right')}>
        <span className="sm:hidden">attempt </span>
        <span>{delivery.attempt}</span>
      </TableCell>
      <TableCell
        className={cn(FIGURE, 'text-muted-foreground', !delivery.nextRetryAt && 'max-sm:hidden')}
      >
        {delivery.nextRetryAt ? (
          <>
            <span className="sm:hidden">retry </span>
            <time dateTime={delivery.nextRetryAt} title={formatLogTime(delivery.nextRetryAt)}>
              {formatNextRetry(delivery.nextRetryAt)}
            </time>
          </>
        ) : (
          '—'
        )}
      </TableCell>
      <TableCell className={cn(FIGURE, 'text-muted-foreground max-sm:order-4')}>
        <time dateTime={delivery.createdAt}>{formatLogTime(delivery.createdAt)}</time>
      </TableCell>
      <TableCell className="px-2 py-1.5 text-right max-sm:order-3 max-sm:p-0">
        <Button
          variant="ghost"
          size="sm"
          className="h-7 px-2 text-xs max-sm:w-7 max-sm:px-0"
          aria-label={`Redeliver ${delivery.event} of ${formatLogTime(delivery.createdAt)}`}
          title="Send this event again now"
          disabled={sending}
          onClick={() => onRedeliver(delivery)}
        >
          {sending ? <Spinner /> : <RotateCcw aria-hidden className="size-3.5!" />}
          <span className="max-sm:sr-only">Redeliver</span>
        </Button>
      </TableCell>
    </TableRow>
  );
}

const CELL = 'px-3 py-2 max-sm:p-0';
/** Code, duration, attempt, retry and time: columns from `sm` up, one muted line below it. */
const FIGURE =
  'px-3 py-2 whitespace-nowrap tabular-nums max-sm:order-5 max-sm:p-0 max-sm:text-left max-sm:text-muted-foreground';

/**
 * The line under a failed delivery's event: why it failed (a network error, a
 * timeout, a refused address), or for a refusing status (already in the Code
 * column) the start of what the receiver answered.
 */
function deliveryNote(delivery: WebhookDelivery): { text: string; error: boolean } | null {
  if (delivery.status === 'succeeded') return null;
  if (delivery.error && delivery.error !== `HTTP ${delivery.statusCode}`) {
    return { text: delivery.error, error: true };
  }
  const excerpt = delivery.responseExcerpt?.trim();
  return excerpt ? { text: excerpt, error: false } : null;
}
