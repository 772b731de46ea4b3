import { useState, type FormEvent, type ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DialogClose, DialogFooter, DialogHeading } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';

/** What the form needs of the request that saves the name (a TanStack mutation fits). */
interface NameRequest {
  isPending: boolean;
  isError: boolean;
  error: Error | null;
  reset: () => void;
}

/**
 * A space's name in a dialog: naming a new space, renaming one. The server's
 * word on the name (a rule it broke) goes under the field; anything else (the
 * plan's limit) above the buttons.
 */
export function SpaceNameForm({
  title,
  description,
  initialName = '',
  placeholder,
  submitLabel,
  fallbackError,
  request,
  onSubmit,
}: {
  title: string;
  description: ReactNode;
  initialName?: string;
  placeholder?: string;
  submitLabel: string;
  /** Shown when the server's refusal carries no message. */
  fallbackError: string;
  request: NameRequest;
  onSubmit: (name: string) => void;
}) {
  const [name, setName] = useState(initialName);
  const blank = name.trim() === '';
  const nameError = request.error instanceof ApiError ? request.error.detailFor('name') : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (blank || request.isPending) return;
    onSubmit(name.trim());
  }

  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <DialogHeading title={title} description={description} />
      <FormField
        label="Name"
        placeholder={placeholder}
        autoComplete="off"
        maxLength={100}
        autoFocus
        value={name}
        error={nameError}
        onChange={(event) => {
          setName(event.target.value);
          if (request.isError) request.reset();
        }}
      />
      {request.isError && !nameError ? (
        <Alert variant="error">{request.error?.message || fallbackError}</Alert>
      ) : null}
      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button type="submit" disabled={blank || request.isPending}>
          {request.isPending ? <Spinner /> : null}
          {submitLabel}
        </Button>
      </DialogFooter>
    </form>
  );
}
