import type { Space } from '@engram/shared';
import { toast } from 'sonner';
import { SpaceNameForm } from '@/components/space-name-form';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { useRenameSpace } from '@/lib/api/spaces';

/** Renames a space; its slug (what agents and keys name it by) stays. */
export function RenameSpaceDialog({
  space,
  onClose,
}: {
  space: Space | null;
  onClose: () => void;
}) {
  return (
    <Dialog open={space !== null} onOpenChange={(next) => (next ? undefined : onClose())}>
      <DialogContent guardInput>
        {space ? <RenameSpaceForm space={space} onDone={onClose} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function RenameSpaceForm({ space, onDone }: { space: Space; onDone: () => void }) {
  const rename = useRenameSpace();
  return (
    <SpaceNameForm
      title="Rename space"
      description={
        <>
          The slug <span className="font-mono text-foreground">{space.slug}</span> stays: agents and
          keys keep finding the space by it.
        </>
      }
      initialName={space.name}
      submitLabel="Save"
      fallbackError="Failed to rename space"
      request={rename}
      onSubmit={(name) =>
        rename.mutate(
          { slug: space.slug, name },
          {
            onSuccess: (renamed) => {
              toast.success(`Space renamed to "${renamed.name}"`);
              onDone();
            },
          },
        )
      }
    />
  );
}
