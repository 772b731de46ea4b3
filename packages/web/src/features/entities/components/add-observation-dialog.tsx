import type { Entity } from '@engram/shared';
import { useId, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
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
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { Textarea } from '@/components/ui/textarea';
import { useAddObservations } from '../api/add-observations';
import { serverReason } from '../display';

/**
 * Add observation on the entity page (issue 58): one text, trimmed, added to
 * the entity's observations as the Entities screen's form adds them; a blank
 * text is refused before anything is sent (docs/product.md, Forms).
 */
export function AddObservationDialog({
  entity,
  open,
  onClose,
}: {
  entity: Entity;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      <DialogContent className="sm:max-w-lg">
        {/* The content unmounts on close: every opening starts empty. */}
        {open ? <AddObservationForm entity={entity} onDone={onClose} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function AddObservationForm({ entity, onDone }: { entity: Entity; onDone: () => void }) {
  const add = useAddObservations(entity.id);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    const content = text.trim();
    if (!content) {
      setError('Observation cannot be empty');
      return;
    }
    add.mutate([content], {
      onSuccess: () => {
        toast.success('Observation added successfully');
        onDone();
      },
      onError: (failure) =>
        toast.error('Failed to add observation', { description: serverReason(failure) }),
    });
  }

  return (
    <form onSubmit={submit} noValidate className="grid gap-4">
      <DialogHeader>
        <DialogTitle>Add Observation</DialogTitle>
        <DialogDescription className="wrap-anywhere">
          A fact about <span className="font-medium text-foreground">{entity.name}</span>, in plain
          text.
        </DialogDescription>
      </DialogHeader>
      <div className="grid gap-2">
        <Label htmlFor={id}>Observation</Label>
        <Textarea
          id={id}
          rows={4}
          value={text}
          autoFocus
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(event) => {
            setText(event.target.value);
            setError(null);
          }}
        />
        {error ? (
          <p id={`${id}-error`} className="text-xs text-destructive">
            {error}
          </p>
        ) : null}
      </div>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <Button type="submit" disabled={add.isPending}>
          {add.isPending ? <Spinner /> : null}
          Add Observation
        </Button>
      </DialogFooter>
    </form>
  );
}
