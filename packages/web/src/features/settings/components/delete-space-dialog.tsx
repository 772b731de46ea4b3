import type { Space } from '@engram/shared';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { useDeleteSpace } from '@/lib/api/spaces';
import { spaceCountsLabel } from '../space-display';

interface DeleteSpaceDialogProps {
  space: Space | null;
  onClose: () => void;
  onDeleted: (slug: string) => void;
}

/**
 * Deleting a space deletes its whole graph, so the person types its slug
 * first (docs/product.md, States: deleting asks first).
 */
export function DeleteSpaceDialog({ space, onClose, onDeleted }: DeleteSpaceDialogProps) {
  const remove = useDeleteSpace();
  const [typed, setTyped] = useState('');
  const inputId = useId();

  function close() {
    setTyped('');
    remove.reset();
    onClose();
  }

  return (
    <ConfirmDeleteDialog
      open={space !== null}
      onClose={close}
      title="Delete space"
      question={
        <>
          Delete <span className="font-medium text-foreground">{space?.name}</span> and everything
          in it? Its entities, relations and observations are deleted for good, and agents using it
          get &ldquo;Space not found&rdquo;.
        </>
      }
      pending={remove.isPending}
      confirmDisabled={typed !== space?.slug}
      action="Delete space"
      onConfirm={() => {
        if (!space || typed !== space.slug) return;
        remove.mutate(space.slug, {
          onSuccess: () => {
            toast.success(`Space "${space.name}" deleted`);
            onDeleted(space.slug);
            close();
          },
          onError: (error) => toast.error(error.message || 'Failed to delete space'),
        });
      }}
    >
      {space ? (
        <div className="grid gap-2">
          <p className="text-sm text-muted-foreground">It holds {spaceCountsLabel(space)}.</p>
          <Label htmlFor={inputId}>
            Type <span className="font-mono">{space.slug}</span> to confirm
          </Label>
          <Input
            id={inputId}
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
          />
        </div>
      ) : null}
    </ConfirmDeleteDialog>
  );
}
