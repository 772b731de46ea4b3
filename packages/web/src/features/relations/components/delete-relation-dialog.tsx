import type { Relation } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { useDeleteRelation } from '../api/delete-relation';
import { serverReason } from '../display';
import { RelationSummary } from './relation-summary';

interface DeleteRelationDialogProps {
  /** The relation to delete; the dialog is open while one is set. */
  relation: Relation | null;
  onClose: () => void;
}

/** Deleting a relation asks first (docs/product.md, States). */
export function DeleteRelationDialog({ relation, onClose }: DeleteRelationDialogProps) {
  const remove = useDeleteRelation();
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
          onSuccess: () => {
            toast.success('Relation deleted successfully');
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
