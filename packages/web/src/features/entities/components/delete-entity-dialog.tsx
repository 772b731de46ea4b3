import type { Entity } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { showUndoNotice } from '@/components/undo-notice';
import { useEntityRelationCount } from '../api/count-entity-relations';
import { useDeleteEntity } from '../api/delete-entity';
import { useUndoCall } from '@/lib/api/revert-change';
import { deleteConsequence } from '../delete-rules';
import { serverReason } from '../display';

interface DeleteEntityDialogProps {
  /** The entity to delete; the dialog is open while one is set. */
  entity: Entity | null;
  onClose: () => void;
  /** After the delete (the entity page goes to /entities); the dialog closes either way. */
  onDeleted?: () => void;
}

/**
 * Deleting asks first, naming the entity and what goes with it
 * (docs/product.md, States); the notice after it offers Undo, which reverts
 * the delete's call (docs/history.md, Undo).
 */
export function DeleteEntityDialog({ entity, onClose, onDeleted }: DeleteEntityDialogProps) {
  const remove = useDeleteEntity();
  const undo = useUndoCall();
  const relations = useEntityRelationCount(entity?.id ?? null);
  return (
    <ConfirmDeleteDialog
      open={entity !== null}
      onClose={onClose}
      title="Delete Entity"
      question={<>Are you sure you want to delete &quot;{entity?.name}&quot;?</>}
      pending={remove.isPending}
      onConfirm={() => {
        if (!entity) return;
        // A promise, not mutate's callbacks: on the entity page the realtime event of this very
        // delete can make the page say "Entity not found" (unmounting this dialog) before the
        // lists are read again, and the notice and the move to /entities must still happen.
        remove.mutateAsync(entity.id).then(
          ({ callSeq }) => {
            showUndoNotice('Entity deleted successfully', () => undo(callSeq));
            onClose();
            onDeleted?.();
          },
          (error: unknown) =>
            toast.error('Failed to delete entity', { description: serverReason(error) }),
        );
      }}
    >
      {entity ? (
        <p className="text-sm text-muted-foreground">
          {deleteConsequence(entity.observationsCount, relations.data)}
        </p>
      ) : null}
    </ConfirmDeleteDialog>
  );
}
