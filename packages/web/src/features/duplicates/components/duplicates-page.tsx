import type { DuplicateCandidate, MergeResult } from '@engram/shared';
import { CopyCheck } from 'lucide-react';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { EmptyState } from '@/components/empty-state';
import { ListLoading } from '@/components/list-page';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { LoadMoreButton } from '@/components/load-more';
import { Page } from '@/components/page';
import { RefreshButton } from '@/components/refresh-button';
import { RoleNote } from '@/components/role-note';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { showUndoNotice } from '@/components/undo-notice';
import { useCan, VIEWER_READ_ONLY } from '@/lib/account';
import { useEntity } from '@/lib/api/entities';
import { errorMessage } from '@/lib/api-client';
import { pluralize } from '@/lib/format';
import { useDismissDuplicate, useUndismiss } from '../api/dismiss-duplicate';
import { useDuplicatePages } from '../api/list-duplicate-pages';
import { useUndoCall } from '@/lib/api/revert-change';
import { duplicatesPath, entityPath } from '../display';
import { mergedNotice, quoted, sidesOf } from '../merge-rules';
import { CandidateCard } from './candidate-card';
import { MergeDialog, type MergeRequest } from './merge-dialog';

/** A merge's notice stays longer than the toaster's 5 s: its Undo puts a whole entity back. */
const MERGE_NOTICE_MS = 10_000;

/** Adds or takes `value` out of a set held in state, as a new set. */
const withItem = (set: ReadonlySet<string>, value: string, present: boolean) => {
  const next = new Set(set);
  if (present) next.add(value);
  else next.delete(value);
  return next;
};

/**
 * Duplicates (/duplicates; issue 59, docs/consolidation.md): the space's
 * pairs of entities that are probably one thing, most likely first, each
 * side by side with what a person weighs (aliases, observations, relations,
 * metadata) and the reasons. "Merge into" either side asks first, saying
 * what moves, and the notice after it offers Undo (a revert of the merge's
 * call); "Not the same" dismisses the pair, with Undo too. ?entity=<id>
 * shows that entity's pairs only (the entity page's "Review").
 *
 * Pairs are found in the background: while the finder is still comparing
 * recent changes (`upToDate: false`) a quiet note says so and the list is
 * read again every few seconds. A viewer sees the buttons held back, with the
 * reason.
 */
export function DuplicatesPage() {
  const [params] = useSearchParams();
  const entityId = params.get('entity') || null;
  const pages = useDuplicatePages(entityId);
  const filterEntity = useEntity(entityId ?? undefined);
  const canEdit = useCan('editGraph');
  const noteId = useId();

  const [merging, setMerging] = useState<MergeRequest | null>(null);
  // Settled on this screen, so hidden at once (before the list is read again) until an Undo:
  // merged pairs and their sources, dismissed pairs.
  const [settledPairs, setSettledPairs] = useState<ReadonlySet<string>>(new Set());
  const [goneEntities, setGoneEntities] = useState<ReadonlySet<string>>(new Set());
  const [dismissing, setDismissing] = useState<ReadonlySet<string>>(new Set());
  const dismiss = useDismissDuplicate();
  const undismiss = useUndismiss();
  const undo = useUndoCall();

  const settle = (pairId: string, settled: boolean) =>
    setSettledPairs((current) => withItem(current, pairId, settled));

  function merged(request: MergeRequest, result: MergeResult) {
    setMerging(null);
    settle(request.candidate.id, true);
    setGoneEntities((current) => withItem(current, request.source.id, true));
    const notice = mergedNotice(result, request.source);
    showUndoNotice(
      notice.message,
      () =>
        undo(result.callSeq).then(() => {
          settle(request.candidate.id, false);
          setGoneEntities((current) => withItem(current, request.source.id, false));
        }),
      { description: notice.description, undone: 'Merge undone', duration: MERGE_NOTICE_MS },
    );
  }

  function notTheSame(candidate: DuplicateCandidate) {
    // Named in the order the card shows them.
    const [a, b] = sidesOf(candidate);
    const pair: [string, string] = [a.id, b.id];
    setDismissing((current) => withItem(current, candidate.id, true));
    dismiss
      .mutateAsync(pair)
      .then(
        () => {
          settle(candidate.id, true);
          showUndoNotice(
            'Marked as not the same',
            () => undismiss(pair).then(() => settle(candidate.id, false)),
            {
              description: `${quoted(a.name)} and ${quoted(b.name)} are not proposed again unless one is renamed.`,
              undone: 'Pair restored',
            },
          );
        },
        (error: unknown) =>
          toast.error('Failed to mark the pair', { description: errorMessage(error, undefined) }),
      )
      .finally(() => setDismissing((current) => withItem(current, candidate.id, false)));
  }

  const seen = new Set<string>();
  const candidates = (pages.data?.pages.flatMap((page) => page.candidates) ?? []).filter(
    (candidate) => {
      // A page read after a change may repeat a pair an earlier page had.
      if (seen.has(candidate.id)) return false;
      seen.add(candidate.id);
      return (
        !settledPairs.has(candidate.id) &&
        !candidate.entities.some((entity) => goneEntities.has(entity.id))
      );
    },
  );
  const loadError = pages.isError ? (errorMessage(pages.error, undefined) ?? null) : null;
  const upToDate = pages.data?.pages.every((page) => page.upToDate) ?? true;
  const filterName =
    filterEntity.data?.name ??
    pages.data?.pages[0]?.candidates[0]?.entities.find((entity) => entity.id === entityId)?.name;

  return (
    <Page
      title="Duplicates"
      description="Entities that are probably one thing, most likely first: merge them, or mark them as not the same"
      actions={
        <RefreshButton
          disabled={pages.isFetching && !pages.isFetchingNextPage}
          spinning={pages.isRefetching && !pages.isFetchingNextPage}
          onClick={() => void pages.refetch()}
        />
      }
    >
      {!canEdit ? (
        <div id={noteId}>
          <RoleNote testId="duplicates-viewer-note">{VIEWER_READ_ONLY}.</RoleNote>
        </div>
      ) : null}

      {entityId ? (
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
          <span className="text-muted-foreground">Pairs with</span>
          {filterName ? (
            <Link
              to={entityPath(entityId)}
              className="min-w-0 font-medium wrap-anywhere underline-offset-4 hover:underline"
            >
              {filterName}
            </Link>
          ) : (
            <span className="text-muted-foreground">one entity</span>
          )}
          <span aria-hidden className="text-muted-foreground">
            ·
          </span>
          <Link
            to={duplicatesPath()}
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            Show all pairs
          </Link>
        </div>
      ) : null}

      {pages.isPending ? <ListLoading>Loading duplicates...</ListLoading> : null}

      {pages.isError && !pages.data ? (
        <LoadErrorAlert onRetry={() => void pages.refetch()}>
          {loadError ? `Failed to load duplicates: ${loadError}` : 'Failed to load duplicates'}
        </LoadErrorAlert>
      ) : null}

      {pages.data && !upToDate ? (
        <p role="status" className="flex items-center gap-2 text-xs text-muted-foreground">
          <Spinner className="size-3.5" />
          Still comparing recent changes: more pairs may appear shortly.
        </p>
      ) : null}

      {pages.data && candidates.length === 0 && !pages.hasNextPage ? (
        <EmptyState
          icon={CopyCheck}
          title="No duplicates found"
          description={
            entityId
              ? `Nothing else looks like ${filterName ?? 'this entity'} at the moment.`
              : 'No two entities look like one thing. Engram compares names, types, neighbours and observations as entities change.'
          }
          actions={
            entityId ? (
              <Button variant="outline" asChild>
                <Link to={duplicatesPath()}>Show all pairs</Link>
              </Button>
            ) : undefined
          }
        />
      ) : null}

      {candidates.length > 0 ? (
        <section aria-label="Candidate pairs" className="grid gap-4">
          <p className="text-sm text-muted-foreground" aria-live="polite">
            <span className="font-medium text-foreground">
              {pluralize(candidates.length, 'pair')}
              {pages.hasNextPage ? ' so far' : ''}
            </span>
            , most likely first
          </p>
          {candidates.map((candidate) => (
            <CandidateCard
              key={candidate.id}
              candidate={candidate}
              onMerge={(target, source) => setMerging({ candidate, target, source })}
              onDismiss={() => notTheSame(candidate)}
              dismissing={dismissing.has(candidate.id)}
              readOnly={canEdit ? null : { noteId }}
            />
          ))}
        </section>
      ) : null}

      {pages.hasNextPage ? (
        <div className="flex flex-col items-center gap-2">
          <LoadMoreButton pages={pages} />
          {pages.isFetchNextPageError ? (
            <p role="alert" className="text-xs text-destructive">
              Failed to load more pairs
            </p>
          ) : null}
        </div>
      ) : null}

      <MergeDialog
        // A fresh dialog (and mutation state) for each merge asked for.
        key={merging ? `${merging.candidate.id}:${merging.target.id}` : 'none'}
        request={merging}
        onClose={() => setMerging(null)}
        onMerged={merged}
      />
    </Page>
  );
}
