import type { Entity } from '@engram/shared';
import { useId, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { FormDialogFooter } from '@/components/form-dialog-footer';
import { Dialog, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { FieldMessage } from '@/components/ui/form-field';
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
      <DialogHeading
        title="Add Observation"
        description={
          <>
            A fact about <span className="font-medium text-foreground">{entity.name}</span>, in
            plain text.
          </>
        }
        descriptionClassName="wrap-anywhere"
      />
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
        <FieldMessage id={`${id}-error`} message={error} />
      </div>
      <FormDialogFooter submitLabel="Add Observation" pending={add.isPending} />
    </form>
  );
}
