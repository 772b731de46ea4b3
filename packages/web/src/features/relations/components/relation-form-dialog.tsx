import { typeLabel, type Relation } from '@engram/shared';
import { useId, useRef, useState, type FormEvent } from 'react';
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
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import {
  Select,
  SelectContent,
  SelectItem,
  SelectSeparator,
  SelectTrigger,
  SelectValue,
} from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useCreateRelation } from '../api/create-relation';
import type { PickedEntity } from '../api/search-entities';
import { serverReason } from '../display';
import { useUpdateRelation } from '../api/update-relation';
import {
  checkRelationForm,
  RELATION_TYPE_OPTIONS,
  type RelationFormField,
} from '../relation-rules';
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
      <DialogContent className="max-h-[calc(100dvh-2rem)] overflow-y-auto">
        {state ? (
          <RelationForm relation={state.mode === 'edit' ? state.relation : null} onDone={onClose} />
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

const CUSTOM_CHOICE = 'custom-type';
const typeChoice = (type: string) => `type:${type}`;

interface FieldError {
  field: RelationFormField;
  message: string;
}

/**
 * The relation form: source and target pickers (each disables the entity
 * picked on the other side) and the type, from the ten of docs/product.md (Forms) or typed.
 * Editing changes the type only; both pickers are disabled.
 */
function RelationForm({ relation, onDone }: { relation: Relation | null; onDone: () => void }) {
  const editing = relation !== null;
  const [from, setFrom] = useState<PickedEntity | null>(relation?.fromEntity ?? null);
  const [to, setTo] = useState<PickedEntity | null>(relation?.toEntity ?? null);
  const initialCustom =
    relation && !RELATION_TYPE_OPTIONS.includes(relation.type) ? relation.type : null;
  const [type, setType] = useState(initialCustom === null ? (relation?.type ?? '') : '');
  const [customType, setCustomType] = useState<string | null>(initialCustom);
  const [error, setError] = useState<FieldError | null>(null);

  const create = useCreateRelation();
  const update = useUpdateRelation();
  const pending = create.isPending || update.isPending;

  const ids = { from: useId(), to: useId(), type: useId() };
  const fromRef = useRef<HTMLButtonElement>(null);
  const toRef = useRef<HTMLButtonElement>(null);
  const typeRef = useRef<HTMLButtonElement>(null);
  const customRef = useRef<HTMLInputElement>(null);
  const focusCustomOnClose = useRef(false);

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
      <DialogHeader>
        <DialogTitle>{editing ? 'Edit Relation' : 'Create New Relation'}</DialogTitle>
        <DialogDescription>
          {editing
            ? 'Update the relation type. Entity connections cannot be modified.'
            : 'Create a new relationship between two entities.'}
        </DialogDescription>
      </DialogHeader>

      <div className="grid gap-2">
        <Label htmlFor={ids.from}>Source Entity</Label>
        <EntityPicker
          id={ids.from}
          ref={fromRef}
          value={from}
          searchLabel="Search source entities"
          disabled={editing}
          disabledEntityId={to?.id}
          invalid={Boolean(errorFor('fromEntityId'))}
          describedBy={errorFor('fromEntityId') ? messageId('fromEntityId') : undefined}
          onChange={(entity) => {
            setFrom(entity);
            edited('fromEntityId');
            if (error?.field === 'toEntityId') setError(null);
          }}
        />
        <FieldMessage id={messageId('fromEntityId')} message={errorFor('fromEntityId')} />
      </div>

      <div className="grid gap-2">
        <Label htmlFor={ids.to}>Target Entity</Label>
        <EntityPicker
          id={ids.to}
          ref={toRef}
          value={to}
          searchLabel="Search target entities"
          disabled={editing}
          disabledEntityId={from?.id}
          invalid={Boolean(errorFor('toEntityId'))}
          describedBy={errorFor('toEntityId') ? messageId('toEntityId') : undefined}
          onChange={(entity) => {
            setTo(entity);
            edited('toEntityId');
          }}
        />
        <FieldMessage id={messageId('toEntityId')} message={errorFor('toEntityId')} />
      </div>

      <div className="grid gap-2">
        <Label htmlFor={ids.type}>Relation Type</Label>
        <Select
          value={customType !== null ? CUSTOM_CHOICE : type ? typeChoice(type) : ''}
          onValueChange={(choice) => {
            edited('type');
            if (choice === CUSTOM_CHOICE) {
              setCustomType((current) => current ?? '');
              focusCustomOnClose.current = true;
            } else {
              setCustomType(null);
              setType(choice.slice('type:'.length));
            }
          }}
        >
          <SelectTrigger
            ref={typeRef}
            id={ids.type}
            aria-invalid={typeError && customType === null ? true : undefined}
            aria-describedby={typeError ? messageId('type') : undefined}
          >
            <SelectValue placeholder="Select a relation type" />
          </SelectTrigger>
          <SelectContent
            onCloseAutoFocus={(event) => {
              // Choosing 'Custom Type...' moves on to the text box it reveals.
              if (!focusCustomOnClose.current) return;
              focusCustomOnClose.current = false;
              event.preventDefault();
              customRef.current?.focus();
            }}
          >
            {RELATION_TYPE_OPTIONS.map((option) => (
              <SelectItem key={option} value={typeChoice(option)} hint={option}>
                {typeLabel(option)}
              </SelectItem>
            ))}
            <SelectSeparator />
            <SelectItem value={CUSTOM_CHOICE}>Custom Type...</SelectItem>
          </SelectContent>
        </Select>
        {customType !== null ? (
          <Input
            ref={customRef}
            aria-label="Custom relation type"
            placeholder="e.g. mentored_by"
            autoComplete="off"
            maxLength={100}
            value={customType}
            aria-invalid={typeError ? true : undefined}
            aria-describedby={typeError ? messageId('type') : undefined}
            onChange={(event) => {
              setCustomType(event.target.value);
              edited('type');
            }}
          />
        ) : null}
        <FieldMessage id={messageId('type')} message={typeError} />
      </div>

      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button type="submit" disabled={pending}>
          {pending ? <Spinner /> : null}
          {editing ? 'Update Relation' : 'Create Relation'}
        </Button>
      </DialogFooter>
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

function FieldMessage({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p id={id} className="text-xs text-destructive">
      {message}
    </p>
  ) : null;
}
