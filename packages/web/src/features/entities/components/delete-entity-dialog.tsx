import type { Entity } from '@engram/shared';
import { toast } from 'sonner';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { useDeleteEntity } from '../api/delete-entity';
import { serverReason } from '../display';

interface DeleteEntityDialogProps {
  /** The entity to delete; the dialog is open while one is set. */
  entity: Entity | null;
  onClose: () => void;
}

/** Deleting asks first, naming the entity (docs/product.md, States). */
export function DeleteEntityDialog({ entity, onClose }: DeleteEntityDialogProps) {
  const remove = useDeleteEntity();
  return (
    <ConfirmDeleteDialog
      open={entity !== null}
      onClose={onClose}
      title="Delete Entity"
      question={<>Are you sure you want to delete &quot;{entity?.name}&quot;?</>}
      pending={remove.isPending}
      onConfirm={() => {
        if (!entity) return;
        remove.mutate(entity.id, {
          onSuccess: () => {
            toast.success('Entity deleted successfully');
            onClose();
          },
          onError: (error) =>
            toast.error('Failed to delete entity', { description: serverReason(error) }),
        });
      }}
    >
      <p className="text-sm text-muted-foreground">
        Its observations and relations are deleted with it. This cannot be undone.
      </p>
    </ConfirmDeleteDialog>
  );
}
