import type { HistoryChange } from '@engram/shared';
import {
  FilePlus2,
  History,
  Link2,
  Merge,
  Pencil,
  Plus,
  RotateCcw,
  Trash2,
  Unlink,
  type LucideIcon,
} from 'lucide-react';
import { useMemo, useState } from 'react';
import { toast } from 'sonner';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { EmptyState } from '@/components/empty-state';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { LoadMoreButton } from '@/components/load-more';
import { Spinner } from '@/components/ui/spinner';
import { useCan } from '@/lib/account';
import { ApiError } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { formatDateTime, pluralize } from '@/lib/format';
import { useEntityHistory } from '../api/entity-history';
import { useRevertChange } from '@/lib/api/revert-change';
import {
  actorLabel,
  changesInCall,
  describeChange,
  diffLines,
  timeAgo,
  type DiffLine,
} from '../history-model';

const ICONS: Record<HistoryChange['type'], LucideIcon> = {
  entity_created: Plus,
  entity_updated: Pencil,
  entity_deleted: Trash2,
  observation_added: FilePlus2,
  relation_created: Link2,
  relation_updated: Link2,
  relation_deleted: Unlink,
  entity_merged: Merge,
};

/**
 * The entity page's History tab (docs/history.md): every change to the
 * entity, its observations and its relations, newest first, each with who,
 * when, what it changed and a way to revert the call that made it (not for
 * a viewer, who reads only: lib/account/role-rules.ts).
 */
export function EntityHistory({ entityId }: { entityId: string }) {
  const history = useEntityHistory(entityId);
  const changes = useMemo(
    () => history.data?.pages.flatMap((page) => page.changes) ?? [],
    [history.data],
  );
  const [reverting, setReverting] = useState<HistoryChange | null>(null);
  const canRevert = useCan('editGraph');

  if (history.isPending) {
    return (
      <Card
        role="status"
        className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
      >
        <Spinner />
        Loading history...
      </Card>
    );
  }
  // Only when nothing was read: a failed refresh or older page keeps the list on screen.
  if (!history.data) {
    return (
      <LoadErrorAlert onRetry={() => void history.refetch()}>
        {history.error instanceof ApiError && history.error.body
          ? `Failed to load history: ${history.error.message}`
          : 'Failed to load history'}
      </LoadErrorAlert>
    );
  }
  if (changes.length === 0) {
    return (
      <EmptyState
        icon={History}
        title="No changes kept"
        description="Changes to this entity show here for as long as your plan keeps history."
      />
    );
  }

  return (
    <Card className="min-w-0" role="region" aria-labelledby="history-heading">
      <div className="flex items-center justify-between gap-2 px-4 pt-4 pb-3">
        <h2 id="history-heading" className="text-base font-semibold">
          Changes
        </h2>
        <span className="text-xs text-muted-foreground">Newest first</span>
      </div>
      <ol className="divide-y divide-border border-t border-border" aria-label="Changes">
        {changes.map((change) => (
          <ChangeRow
            key={change.seq}
            change={change}
            entityId={entityId}
            callSize={changesInCall(changes, change.callSeq)}
            onRevert={canRevert ? () => setReverting(change) : undefined}
          />
        ))}
      </ol>
      {history.hasNextPage ? (
        <div className="flex justify-center border-t border-border p-3">
          <LoadMoreButton pages={history} size="sm" />
        </div>
      ) : null}
      {history.isFetchNextPageError ? (
        <p role="alert" className="border-t border-border px-4 py-2 text-xs text-destructive">
          Failed to load older changes.
        </p>
      ) : null}
      <RevertDialog
        // A fresh dialog (and mutation state) for each change chosen.
        key={reverting?.seq ?? 'none'}
        change={reverting}
        callSize={reverting ? changesInCall(changes, reverting.callSeq) : 0}
        entityId={entityId}
        onClose={() => setReverting(null)}
      />
    </Card>
  );
}

function ChangeRow({
  change,
  entityId,
  callSize,
  onRevert,
}: {
  change: HistoryChange;
  entityId: string;
  /** How many changes on the loaded pages the same call made. */
  callSize: number;
  /** Left out for a role that may not change the graph (a viewer): no Revert. */
  onRevert?: (() => void) | undefined;
}) {
  const Icon = ICONS[change.type];
  const lines = diffLines(change);
  const title = describeChange(change, entityId);
  return (
    <li className="flex gap-3 px-4 py-3" data-testid="history-change">
      <span className="mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-full bg-muted text-muted-foreground">
        <Icon className="size-3.5" aria-hidden />
      </span>
      <div className="grid min-w-0 flex-1 gap-1.5">
        <div className="flex items-start justify-between gap-2">
          <div className="min-w-0">
            <p className="text-sm font-medium wrap-anywhere">{title}</p>
            <p className="mt-0.5 flex flex-wrap items-center gap-x-1.5 text-xs text-muted-foreground">
              <span className="wrap-anywhere">{actorLabel(change.actor)}</span>
              <span aria-hidden>·</span>
              <time dateTime={change.at} title={formatDateTime(change.at)}>
                {timeAgo(change.at)}
              </time>
              {callSize > 1 ? (
                <>
                  <span aria-hidden>·</span>
                  <span>one of {callSize} changes in a call</span>
                </>
              ) : null}
            </p>
          </div>
          {onRevert ? (
            <Button
              variant="ghost"
              size="sm"
              className="-mr-2 h-7 shrink-0 px-2 text-muted-foreground hover:text-foreground"
              onClick={onRevert}
              aria-label={`Revert: ${title}`}
            >
              <RotateCcw aria-hidden />
              <span className="hidden sm:inline">Revert</span>
            </Button>
          ) : null}
        </div>
        {lines.length > 0 ? <ChangeDiff lines={lines} /> : null}
      </div>
    </li>
  );
}

function ChangeDiff({ lines }: { lines: DiffLine[] }) {
  return (
    <ul className="grid gap-1 text-xs" aria-label="What changed">
      {lines.map((line, index) =>
        line.kind === 'field' ? (
          <li key={index} className="flex min-w-0 flex-wrap items-baseline gap-x-1.5">
            <span className="text-muted-foreground">{line.label}</span>
            <span className="text-destructive-soft-foreground line-through decoration-1 wrap-anywhere">
              {line.before}
            </span>
            <span aria-hidden className="text-muted-foreground">
              →
            </span>
            <span className="sr-only">changed to</span>
            <span className="text-success-soft-foreground wrap-anywhere">{line.after}</span>
          </li>
        ) : (
          <li
            key={index}
            className={cn(
              'flex min-w-0 gap-1.5 rounded-md px-2 py-1',
              line.kind === 'added'
                ? 'bg-success-soft text-success-soft-foreground'
                : 'bg-destructive-soft text-destructive-soft-foreground',
            )}
          >
            <span aria-hidden className="w-2 shrink-0 font-semibold">
              {line.kind === 'added' ? '+' : '−'}
            </span>
            <span className="sr-only">{line.kind === 'added' ? 'Added: ' : 'Removed: '}</span>
            <span className="min-w-0 flex-1 whitespace-pre-wrap wrap-anywhere text-foreground">
              {line.text}
              {line.note ? <span className="ml-1.5 text-muted-foreground">{line.note}</span> : null}
            </span>
          </li>
        ),
      )}
    </ul>
  );
}

/** What a revert of `change` will undo, in words, for the confirm dialog. */
function revertExplanation(change: HistoryChange, entityId: string, callSize: number): string {
  const sentences = [
    `This undoes the whole call that made “${describeChange(change, entityId)}” (${formatDateTime(change.at)}).`,
    callSize > 1
      ? `The call made ${pluralize(callSize, 'change')} listed here, and perhaps others elsewhere; all are undone together.`
      : 'If that call changed other entities too, those changes are undone as well.',
  ];
  if (change.type === 'entity_created' && change.after?.id === entityId) {
    sentences.push('It created this entity, so the entity is deleted.');
  }
  sentences.push('The revert is kept in history too.');
  return sentences.join(' ');
}

function RevertDialog({
  change,
  callSize,
  entityId,
  onClose,
}: {
  change: HistoryChange | null;
  callSize: number;
  entityId: string;
  onClose: () => void;
}) {
  const revert = useRevertChange();
  const error = revert.error;

  function confirm() {
    if (!change) return;
    revert.mutate(change.seq, {
      onSuccess: (result) => {
        toast.success(
          result.seqs.length === 0
            ? 'Nothing left to undo: the call’s changes were already gone'
            : `Reverted ${pluralize(result.reverted.changes, 'change')}`,
        );
        onClose();
      },
    });
  }

  return (
    <ConfirmDialog
      open={change !== null}
      onClose={onClose}
      title="Revert this change?"
      description={change ? revertExplanation(change, entityId, callSize) : null}
      pending={revert.isPending}
      onConfirm={confirm}
      action="Revert"
      actionIcon={<RotateCcw aria-hidden />}
    >
      {error ? <RevertError error={error} /> : null}
    </ConfirmDialog>
  );
}

/** A 409 says what changed since (the server's words and details); anything else, the error's words. */
function RevertError({ error }: { error: Error }) {
  const explained = error instanceof ApiError && error.body !== null;
  const details = error instanceof ApiError ? error.details : [];
  return (
    <Alert variant="error">
      <p className="wrap-anywhere">
        {explained ? error.message : `Failed to revert: ${error.message}`}
      </p>
      {details.length > 0 ? (
        <ul className="mt-1.5 grid list-disc gap-0.5 pl-4 text-xs" aria-label="What changed since">
          {details.map((detail, index) => (
            // The field names the row (entity:<id>); the message says it in words.
            <li key={index} className="wrap-anywhere" title={detail.field}>
              {detail.message}
            </li>
          ))}
        </ul>
      ) : null}
    </Alert>
  );
}
