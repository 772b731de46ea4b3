import type { Space } from '@engram/shared';
import { useState, type FormEvent } from 'react';
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
import { useCreateSpace } from '@/lib/api/spaces';

interface NewSpaceDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (space: Space) => void;
}

/** Names a new memory space (the server derives its slug); from the switcher and Settings → Spaces. */
export function NewSpaceDialog({ open, onOpenChange, onCreated }: NewSpaceDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        {/* Unmounted on close: every opening starts with an empty form. */}
        <NewSpaceForm onCreated={onCreated} />
      </DialogContent>
    </Dialog>
  );
}

function NewSpaceForm({ onCreated }: { onCreated: (space: Space) => void }) {
  const [name, setName] = useState('');
  const create = useCreateSpace();
  const blank = name.trim() === '';
  // The server's word on the name (a rule it broke) goes under the field; anything else (the plan's limit) above the buttons.
  const nameError = create.error instanceof ApiError ? create.error.detailFor('name') : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (blank || create.isPending) return;
    create.mutate({ name: name.trim() }, { onSuccess: onCreated });
  }

  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <DialogHeader>
        <DialogTitle>New space</DialogTitle>
        <DialogDescription>
          A space is a separate graph: its entities, relations and observations are seen only in it.
        </DialogDescription>
      </DialogHeader>
      <FormField
        label="Name"
        placeholder="e.g. Project Alpha"
        autoComplete="off"
        maxLength={100}
        autoFocus
        value={name}
        error={nameError}
        onChange={(event) => {
          setName(event.target.value);
          if (create.isError) create.reset();
        }}
      />
      {create.isError && !nameError ? (
        <Alert variant="error">{create.error.message || 'Failed to create space'}</Alert>
      ) : null}
      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button type="submit" disabled={blank || create.isPending}>
          {create.isPending ? <Spinner /> : null}
          Create space
        </Button>
      </DialogFooter>
    </form>
  );
}
