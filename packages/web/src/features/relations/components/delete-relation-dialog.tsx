import type { Relation } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { showUndoNotice } from '@/components/undo-notice';
import { useDeleteRelation } from '../api/delete-relation';
import { useUndoCall } from '@/lib/api/revert-change';
import { serverReason } from '../display';
import { RelationSummary } from './relation-summary';

interface DeleteRelationDialogProps {
  /** The relation to delete; the dialog is open while one is set. */
  relation: Relation | null;
  onClose: () => void;
}

/**
 * Deleting a relation asks first (docs/product.md, States); the notice after
 * it offers Undo, which reverts the delete's call (docs/history.md, Undo).
 */
export function DeleteRelationDialog({ relation, onClose }: DeleteRelationDialogProps) {
  const remove = useDeleteRelation();
  const undo = useUndoCall();
  return (
    <ConfirmDeleteDialog
      open={relation !== null}
      onClose={onClose}
      title="Delete Relation"
      question="Are you sure you want to delete this relation?"
      pending={remove.isPending}
      onConfirm={() => {
        if (!relation) return;
        remove.mutate(relation, {
          onSuccess: ({ callSeq }) => {
            showUndoNotice('Relation deleted successfully', () => undo(callSeq));
            onClose();
          },
          onError: (error) =>
            toast.error('Failed to delete relation', { description: serverReason(error) }),
        });
      }}
    >
      {relation ? <RelationSummary relation={relation} /> : null}
    </ConfirmDeleteDialog>
  );
}
