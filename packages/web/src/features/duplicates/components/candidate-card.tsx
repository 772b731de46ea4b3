import type { DuplicateCandidate, DuplicateEntity } from '@engram/shared';
import { EqualNot, Merge } from 'lucide-react';
import { PendingButton } from '@/components/pending-button';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { duplicateScoreLabel } from '@/lib/api/duplicates';
import { useEntity } from '@/lib/api/entities';
import { ApiError } from '@/lib/api-client';
import { sidesOf } from '../merge-rules';
import { EntitySide, type SideDetails } from './entity-side';

/** One side's full read, and the pair's view of it brought up to date by that read. */
function useSide(entity: DuplicateEntity): { entity: DuplicateEntity; details: SideDetails } {
  const read = useEntity(entity.id);
  const full = read.data;
  return {
    // A rename or a new observation since the pair was compared shows, and the merge preview counts it.
    entity: full
      ? { ...entity, name: full.name, type: full.type, observationsCount: full.observationsCount }
      : entity,
    details: {
      entity: full,
      pending: read.isPending,
      gone: read.error instanceof ApiError && read.error.status === 404,
      failed: read.isError,
    },
  };
}

export interface CandidateActions {
  /** Opens the merge's confirmation: `source` goes into `target`. */
  onMerge: (target: DuplicateEntity, source: DuplicateEntity) => void;
  onDismiss: () => void;
  /** "Not the same" is under way for this pair. */
  dismissing: boolean;
  /** Why the buttons are held back (a viewer), and the id of the note saying so; null when they are not. */
  readOnly: { noteId: string } | null;
}

/**
 * One candidate pair, side by side: the entity holding more on the left,
 * the score and the reasons above, and the three ways to settle it below
 * ("Merge into" either, or "Not the same").
 */
export function CandidateCard({
  candidate,
  onMerge,
  onDismiss,
  dismissing,
  readOnly,
}: { candidate: DuplicateCandidate } & CandidateActions) {
  const [first, second] = sidesOf(candidate);
  const left = useSide(first);
  const right = useSide(second);
  const titleId = `pair-${candidate.id}`;
  const outOfDate = left.details.gone || right.details.gone;
  const held = readOnly !== null || outOfDate || dismissing;
  const describedBy = readOnly?.noteId;
  // Either way round: keep the left one, or keep the right one.
  const choices: [DuplicateEntity, DuplicateEntity][] = [
    [left.entity, right.entity],
    [right.entity, left.entity],
  ];

  return (
    <Card role="article" aria-labelledby={titleId} className="min-w-0 overflow-hidden">
      <h2 id={titleId} className="sr-only">
        {left.entity.name} and {right.entity.name}
      </h2>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 border-b border-border px-4 py-2.5">
        <span
          className="text-sm font-semibold tabular-nums"
          title={`Score ${candidate.score.toFixed(2)}: how likely the two are one thing`}
        >
          {duplicateScoreLabel(candidate.score)}{' '}
          <span className="font-normal text-muted-foreground">match</span>
        </span>
        {candidate.reasons.length > 0 ? (
          <ul
            aria-label="Reasons"
            className="flex min-w-0 flex-wrap gap-x-1.5 gap-y-0.5 text-xs text-muted-foreground"
          >
            {candidate.reasons.map((reason, index) => (
              <li key={reason} className="wrap-anywhere">
                {index > 0 ? (
                  <span aria-hidden className="mr-1.5">
                    ·
                  </span>
                ) : null}
                {reason}
              </li>
            ))}
          </ul>
        ) : null}
      </div>

      <div className="grid divide-y divide-border sm:grid-cols-2 sm:divide-x sm:divide-y-0">
        <EntitySide entity={left.entity} details={left.details} headingId={`${titleId}-left`} />
        <EntitySide entity={right.entity} details={right.details} headingId={`${titleId}-right`} />
      </div>

      <div className="grid gap-2 border-t border-border bg-surface px-4 py-2.5 sm:flex sm:flex-wrap sm:items-center">
        {choices.map(([target, source]) => (
          <Button
            key={target.id}
            variant="outline"
            size="sm"
            className="max-w-full min-w-0"
            disabled={held}
            aria-describedby={describedBy}
            onClick={() => onMerge(target, source)}
          >
            <Merge aria-hidden />
            <span className="truncate">Merge into {target.name}</span>
          </Button>
        ))}
        <PendingButton
          variant="ghost"
          size="sm"
          className="text-muted-foreground hover:text-foreground sm:ml-auto"
          pending={dismissing}
          icon={<EqualNot aria-hidden />}
          disabled={readOnly !== null || outOfDate}
          aria-describedby={describedBy}
          onClick={onDismiss}
        >
          Not the same
        </PendingButton>
      </div>
    </Card>
  );
}
