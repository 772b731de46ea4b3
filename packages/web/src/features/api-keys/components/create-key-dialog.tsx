import type { CreatedApiKey } from '@engram/shared';
import { useState, type FormEvent } from 'react';
import { FormDialogFooter } from '@/components/form-dialog-footer';
import { Alert } from '@/components/ui/alert';
import { Dialog, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { useCreateApiKey } from '../api/create-api-key';
import { errorMessage } from '../key-display';
import { FULL_SCOPE, permissionsOf, scopeProblem, type ScopeChoice } from '../key-scope';
import { KeyScopePicker } from './key-scope-picker';

interface CreateKeyDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (key: CreatedApiKey) => void;
}

/**
 * Names a new key and what it may touch; the button stays disabled while the
 * name is blank (docs/product.md, Forms).
 */
export function CreateKeyDialog({ open, onOpenChange, onCreated }: CreateKeyDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent guardInput>
        {/* The content unmounts on close, so every opening starts with an empty form. */}
        <CreateKeyForm onCreated={onCreated} />
      </DialogContent>
    </Dialog>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ScopeChoice>(FULL_SCOPE);
  const [tried, setTried] = useState(false);
  const createKey = useCreateApiKey();
  const blank = name.trim() === '';
  const problem = scopeProblem(scope);

  function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (blank || problem || createKey.isPending) return;
    createKey.mutate({ name, permissions: permissionsOf(scope) }, { onSuccess: onCreated });
  }

  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <DialogHeading
        title="Create API Key"
        description={
          <>
            Agents and scripts use the key to read and write your knowledge graph. The full key is
            shown once, right after it is created.
          </>
        }
      />
      <FormField
        label="Key Name"
        placeholder="e.g. Production agent"
        autoComplete="off"
        maxLength={100}
        autoFocus
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          if (createKey.isError) createKey.reset();
        }}
        hint="A name that says where the key is used."
      />
      <KeyScopePicker
        value={scope}
        onChange={(next) => {
          setScope(next);
          if (createKey.isError) createKey.reset();
        }}
        error={tried ? problem : null}
      />
      {createKey.isError ? (
        <Alert variant="error">{errorMessage(createKey.error, 'Failed to create API key')}</Alert>
      ) : null}
      <FormDialogFooter
        submitLabel="Create API Key"
        pending={createKey.isPending}
        disabled={blank}
      />
    </form>
  );
}
