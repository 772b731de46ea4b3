import { typeLabel, type Relation } from '@engram/shared';
import { useId, useRef, useState, type ComponentProps, type FormEvent } from 'react';
import { toast } from 'sonner';
import { FormDialogFooter } from '@/components/form-dialog-footer';
import { FieldMessage } from '@/components/ui/form-field';
import { TypeChoice } from '@/components/type-choice';
import { Dialog, DialogContent, DialogHeading, useDialogEdited } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { ApiError } from '@/lib/api-client';
import { useCreateRelation } from '../api/create-relation';
import { useRelationTypePages } from '../api/list-relation-types';
import type { PickedEntity } from '../api/search-entities';
import { serverReason } from '../display';
import { useUpdateRelation } from '../api/update-relation';
import { checkRelationForm, relationTypeChoices, type RelationFormField } from '../relation-rules';
import { EntityPicker } from './entity-picker';

export type RelationFormDialogState =
  { mode: 'create' } | { mode: 'edit'; relation: Relation } | null;

interface RelationFormDialogProps {
  state: RelationFormDialogState;
  onClose: () => void;
}

/** Create Relation and Edit Relation (docs/product.md, The signed-in app; Forms). */
export function RelationFormDialog({ state, onClose }: RelationFormDialogProps) {
  return (
    <Dialog open={state !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className="max-h-[calc(100dvh-2rem)] overflow-y-auto" guardInput>
        {state ? (
          <RelationForm relation={state.mode === 'edit' ? state.relation : null} onDone={onClose} />
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

interface FieldError {
  field: RelationFormField;
  message: string;
}

/**
 * The relation form: source and target pickers (each disables the entity
 * picked on the other side) and the type: the account's relation types and
 * the ten of docs/product.md (Forms) in the shared type picker, or typed after
 * 'Custom Type...'. Editing changes the type only; both pickers are disabled.
 */
function RelationForm({ relation, onDone }: { relation: Relation | null; onDone: () => void }) {
  const editing = relation !== null;
  const [from, setFrom] = useState<PickedEntity | null>(relation?.fromEntity ?? null);
  const [to, setTo] = useState<PickedEntity | null>(relation?.toEntity ?? null);
  const [type, setType] = useState(relation?.type ?? '');
  const [customType, setCustomType] = useState<string | null>(null);
  const [error, setError] = useState<FieldError | null>(null);
  // A picked end or type counts as input: Escape and Back ask before dropping it.
  useDialogEdited(
    from?.id !== relation?.fromEntity.id ||
      to?.id !== relation?.toEntity.id ||
      (customType ?? type) !== (relation?.type ?? ''),
  );

  const create = useCreateRelation();
  const update = useUpdateRelation();
  const relationTypePages = useRelationTypePages();
  const pending = create.isPending || update.isPending;

  const ids = { from: useId(), to: useId(), type: useId() };
  const fromRef = useRef<HTMLButtonElement>(null);
  const toRef = useRef<HTMLButtonElement>(null);
  const typeRef = useRef<HTMLButtonElement>(null);
  const customRef = useRef<HTMLInputElement>(null);

  const errorFor = (field: RelationFormField) =>
    error?.field === field ? error.message : undefined;
  const messageId = (field: RelationFormField) => `${ids[fieldKey(field)]}-message`;

  function edited(field: RelationFormField) {
    if (error?.field === field) setError(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const check = checkRelationForm({
      fromEntityId: from?.id ?? null,
      toEntityId: to?.id ?? null,
      type: customType ?? type,
    });
    if (!check.ok) {
      setError({ field: check.field, message: check.message });
      if (check.field === 'fromEntityId') fromRef.current?.focus();
      else if (check.field === 'toEntityId') toRef.current?.focus();
      else (customType !== null ? customRef : typeRef).current?.focus();
      return;
    }
    setError(null);
    const failed = (error: unknown) => {
      toast.error('Failed to save relation', { description: serverReason(error) });
      // A refusal naming a field (the relation exists already: 'type') shows at that field.
      const field = fieldErrorOf(error);
      if (field) setError(field);
    };
    if (relation) {
      update.mutate(
        { id: relation.id, type: check.input.type },
        {
          onSuccess: () => {
            toast.success('Relation updated successfully');
            onDone();
          },
          onError: failed,
        },
      );
    } else {
      create.mutate(check.input, {
        onSuccess: () => {
          toast.success('Relation created successfully');
          onDone();
        },
        onError: failed,
      });
    }
  }

  const typeError = errorFor('type');
  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <DialogHeading
        title={editing ? 'Edit Relation' : 'Create New Relation'}
        description={
          editing
            ? 'Update the relation type. Entity connections cannot be modified.'
            : 'Create a new relationship between two entities.'
        }
      />

      <EndField
        label="Source Entity"
        id={ids.from}
        messageId={messageId('fromEntityId')}
        error={errorFor('fromEntityId')}
        ref={fromRef}
        value={from}
        searchLabel="Search source entities"
        disabled={editing}
        disabledEntityId={to?.id}
        onChange={(entity) => {
          setFrom(entity);
          edited('fromEntityId');
          if (error?.field === 'toEntityId') setError(null);
        }}
      />

      <EndField
        label="Target Entity"
        id={ids.to}
        messageId={messageId('toEntityId')}
        error={errorFor('toEntityId')}
        ref={toRef}
        value={to}
        searchLabel="Search target entities"
        disabled={editing}
        disabledEntityId={from?.id}
        onChange={(entity) => {
          setTo(entity);
          edited('toEntityId');
        }}
      />

      <div className="grid gap-2">
        <Label htmlFor={ids.type}>Relation Type</Label>
        <TypeChoice
          ref={typeRef}
          customRef={customRef}
          id={ids.type}
          type={type}
          customType={customType}
          placeholder="Select a relation type"
          searchLabel="Search relation types"
          pages={relationTypePages}
          choices={(types, prefix) => relationTypeChoices(types, type, prefix)}
          option={(option) => ({ label: typeLabel(option), hint: option })}
          display={typeLabel}
          customLabel="Custom relation type"
          customPlaceholder="e.g. mentored_by"
          errorId={typeError ? messageId('type') : undefined}
          onChange={(next) => {
            edited('type');
            setType(next.type);
            setCustomType(next.customType);
          }}
        />
        <FieldMessage id={messageId('type')} message={typeError} />
      </div>

      <FormDialogFooter
        submitLabel={editing ? 'Update Relation' : 'Create Relation'}
        pending={pending}
      />
    </form>
  );
}

function fieldErrorOf(error: unknown): FieldError | null {
  if (!(error instanceof ApiError)) return null;
  for (const field of ['fromEntityId', 'toEntityId', 'type'] as RelationFormField[]) {
    const message = error.detailFor(field);
    if (message) return { field, message };
  }
  return null;
}

function fieldKey(field: RelationFormField): 'from' | 'to' | 'type' {
  return field === 'fromEntityId' ? 'from' : field === 'toEntityId' ? 'to' : 'type';
}

/** One end of the relation: its label, its entity picker, and the message about it. */
function EndField({
  label,
  id,
  messageId,
  error,
  ...picker
}: ComponentProps<typeof EntityPicker> & {
  label: string;
  id: string;
  messageId: string;
  error: string | undefined;
}) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <EntityPicker
        id={id}
        invalid={Boolean(error)}
        describedBy={error ? messageId : undefined}
        {...picker}
      />
      <FieldMessage id={messageId} message={error} />
    </div>
  );
}
