import type { DuplicateCandidate, DuplicateEntity, MergeResult } from '@engram/shared';
import { Merge } from 'lucide-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Alert } from '@/components/ui/alert';
import { ApiError } from '@/lib/api-client';
import { useMergeEntities } from '../api/merge-entities';
import { mergeNotes, mergePreview } from '../merge-rules';

/** A merge asked for: `source` goes into `target`. */
export interface MergeRequest {
  candidate: DuplicateCandidate;
  target: DuplicateEntity;
  source: DuplicateEntity;
}

/** The server's words for a refused merge; what to do next for the common ones. */
function mergeError(error: Error): string {
  if (!(error instanceof ApiError) || !error.body) return `Failed to merge: ${error.message}`;
  if (error.status === 404) {
    return `${error.message}. One of the two was changed or removed meanwhile: the list is read again.`;
  }
  return error.message;
}

/**
 * Says what a merge will move before it runs ('3 observations and 2
 * relations move to Ada Lovelace. “A. Lovelace” is removed and becomes an
 * alias.'), then runs it; a refusal (a name clash, a plan limit, a viewer)
 * stays in the dialog in the server's words.
 */
export function MergeDialog({
  request,
  onClose,
  onMerged,
}: {
  request: MergeRequest | null;
  onClose: () => void;
  onMerged: (request: MergeRequest, result: MergeResult) => void;
}) {
  const merge = useMergeEntities();

  function confirm() {
    if (!request) return;
    merge.mutate(
      { targetId: request.target.id, sourceIds: [request.source.id] },
      { onSuccess: (result) => onMerged(request, result) },
    );
  }

  return (
    <ConfirmDialog
      open={request !== null}
      onClose={onClose}
      title={request ? `Merge into ${request.target.name}?` : 'Merge'}
      description={request ? mergePreview(request.source, request.target) : null}
      pending={merge.isPending}
      onConfirm={confirm}
      action="Merge"
      actionIcon={<Merge aria-hidden />}
    >
      {request ? (
        <ul className="grid gap-1 text-xs text-muted-foreground" aria-label="Also">
          {mergeNotes(request.source, request.target).map((note) => (
            <li key={note} className="wrap-anywhere">
              {note}
            </li>
          ))}
        </ul>
      ) : null}
      {merge.error ? (
        <Alert variant="error">
          <p className="wrap-anywhere">{mergeError(merge.error)}</p>
        </Alert>
      ) : null}
    </ConfirmDialog>
  );
}
