import type { Space } from '@engram/shared';
import { toast } from 'sonner';
import { SpaceNameForm } from '@/components/space-name-form';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { useCreateSpace } from '@/lib/api/spaces';

interface NewSpaceDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** After it closes and says the space was created. */
  onCreated?: (space: Space) => void;
}

/** Names a new memory space (the server derives its slug); from the switcher and Settings → Spaces. */
export function NewSpaceDialog({ open, onOpenChange, onCreated }: NewSpaceDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent guardInput>
        {/* Unmounted on close: every opening starts with an empty form. */}
        <NewSpaceForm
          onCreated={(created) => {
            onOpenChange(false);
            toast.success(`Space "${created.name}" created`);
            onCreated?.(created);
          }}
        />
      </DialogContent>
    </Dialog>
  );
}

function NewSpaceForm({ onCreated }: { onCreated: (space: Space) => void }) {
  const create = useCreateSpace();
  return (
    <SpaceNameForm
      title="New space"
      description="A space is a separate graph: its entities, relations and observations are seen only in it."
      placeholder="e.g. Project Alpha"
      submitLabel="Create space"
      fallbackError="Failed to create space"
      request={create}
      onSubmit={(name) => create.mutate({ name }, { onSuccess: onCreated })}
    />
  );
}
