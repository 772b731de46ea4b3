import type { Space } from '@engram/shared';
import { useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
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
      <DialogContent>
        {space ? <RenameSpaceForm space={space} onDone={onClose} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function RenameSpaceForm({ space, onDone }: { space: Space; onDone: () => void }) {
  const [name, setName] = useState(space.name);
  const rename = useRenameSpace();
  const blank = name.trim() === '';
  const nameError = rename.error instanceof ApiError ? rename.error.detailFor('name') : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (blank || rename.isPending) return;
    rename.mutate(
      { slug: space.slug, name: name.trim() },
      {
        onSuccess: (renamed) => {
          toast.success(`Space renamed to "${renamed.name}"`);
          onDone();
        },
      },
    );
  }

  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <DialogHeader>
        <DialogTitle>Rename space</DialogTitle>
        <DialogDescription>
          The slug <span className="font-mono text-foreground">{space.slug}</span> stays: agents and
          keys keep finding the space by it.
        </DialogDescription>
      </DialogHeader>
      <FormField
        label="Name"
        autoComplete="off"
        maxLength={100}
        autoFocus
        value={name}
        error={nameError}
        onChange={(event) => {
          setName(event.target.value);
          if (rename.isError) rename.reset();
        }}
      />
      {rename.isError && !nameError ? (
        <Alert variant="error">{rename.error.message || 'Failed to rename space'}</Alert>
      ) : null}
      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button type="submit" disabled={blank || rename.isPending}>
          {rename.isPending ? <Spinner /> : null}
          Save
        </Button>
      </DialogFooter>
    </form>
  );
}
