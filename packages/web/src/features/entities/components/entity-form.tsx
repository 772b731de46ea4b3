import { entityTypeColor } from '@engram/shared';
import { Plus, X } from 'lucide-react';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { FormDialogFooter } from '@/components/form-dialog-footer';
import { TypeChoice } from '@/components/type-choice';
import { Button } from '@/components/ui/button';
import { useDialogEdited } from '@/components/ui/dialog';
import { FieldMessage, FormField } from '@/components/ui/form-field';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { cn } from '@/lib/cn';
import { useEntityTypePages } from '@/lib/api/entities';
import {
  checkEntityForm,
  typeChoices,
  type EntityFormError,
  type EntityFormField,
  type EntityFormValues,
  type EntityPayload,
} from '../entity-form-rules';

/** The type's colour, as its badge shows it. */
function dot(type: string) {
  return (
    <span
      aria-hidden
      className="inline-block size-2 shrink-0 rounded-full"
      style={{ backgroundColor: entityTypeColor(type) }}
    />
  );
}

function typeWithDot(type: string) {
  return (
    <span className="flex min-w-0 items-center gap-2">
      {dot(type)}
      <span className="truncate">{type}</span>
    </span>
  );
}

export type FieldError = EntityFormError;

interface EntityFormProps {
  initial: EntityFormValues;
  submitLabel: string;
  pending: boolean;
  /** A field the server refused (e.g. a name another entity has). */
  serverError?: FieldError | null;
  /** Said above the observations (e.g. why only new ones can be added). */
  observationsNote?: ReactNode;
  onSubmit: (input: EntityPayload) => void;
}

interface ObservationBox {
  key: number;
  text: string;
}

/**
 * The entity form (docs/product.md, Forms): name, type from the list or 'Custom
 * Type...', metadata as JSON text, and observation boxes (one to start, a
 * remove button only when there is more than one). Nothing is submitted
 * while a rule is broken; a submit shows every broken rule at its field and
 * moves focus to the first.
 */
export function EntityForm({
  initial,
  submitLabel,
  pending,
  serverError,
  observationsNote,
  onSubmit,
}: EntityFormProps) {
  const [name, setName] = useState(initial.name);
  const [type, setType] = useState(initial.type);
  const [customType, setCustomType] = useState<string | null>(initial.customType);
  const [metadata, setMetadata] = useState(initial.metadata);
  const nextKey = useRef(initial.observations.length);
  const [observations, setObservations] = useState<ObservationBox[]>(() =>
    initial.observations.map((text, key) => ({ key, text })),
  );
  const [errors, setErrors] = useState<Partial<Record<EntityFormField, string>>>({});
  const [dismissedServerError, setDismissedServerError] = useState<FieldError | null>(null);
  const liveServerError = serverError !== dismissedServerError ? serverError : null;
  // A type picked from the list counts as input too: Escape and Back ask before dropping it.
  useDialogEdited(type !== initial.type || customType !== initial.customType);

  const ids = { type: useId(), metadata: useId(), observations: useId() };
  const entityTypePages = useEntityTypePages();
  const nameRef = useRef<HTMLInputElement>(null);
  const typeRef = useRef<HTMLButtonElement>(null);
  const customRef = useRef<HTMLInputElement>(null);
  const metadataRef = useRef<HTMLTextAreaElement>(null);
  const boxRefs = useRef(new Map<number, HTMLTextAreaElement>());

  const errorFor = (field: EntityFormField) =>
    errors[field] ?? (liveServerError?.field === field ? liveServerError.message : undefined);

  /** A field's error goes away as soon as that field is edited; the others stay. */
  function edited(field: EntityFormField) {
    if (errors[field]) setErrors(({ [field]: _, ...others }) => others);
    if (serverError?.field === field) setDismissedServerError(serverError);
  }

  function focusField(field: EntityFormField) {
    if (field === 'name') nameRef.current?.focus();
    else if (field === 'type') (customType !== null ? customRef : typeRef).current?.focus();
    else metadataRef.current?.focus();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const check = checkEntityForm({
      name,
      type,
      customType,
      metadata,
      observations: observations.map((box) => box.text),
    });
    if (!check.ok) {
      setErrors(Object.fromEntries(check.errors.map(({ field, message }) => [field, message])));
      focusField(check.errors[0]!.field);
      return;
    }
    setErrors({});
    onSubmit(check.input);
  }

  function addObservation() {
    const key = nextKey.current++;
    setObservations((boxes) => [...boxes, { key, text: '' }]);
    // Focus the new box once it is on screen.
    requestAnimationFrame(() => boxRefs.current.get(key)?.focus());
  }

  function removeObservation(key: number) {
    setObservations((boxes) => boxes.filter((box) => box.key !== key));
  }

  const typeError = errorFor('type');
  const metadataError = errorFor('metadata');

  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <FormField
        ref={nameRef}
        label="Name"
        placeholder="e.g. Ada Lovelace"
        autoComplete="off"
        maxLength={500}
        autoFocus
        value={name}
        error={errorFor('name')}
        onChange={(event) => {
          setName(event.target.value);
          edited('name');
        }}
      />

      <div className="grid gap-2">
        <Label htmlFor={ids.type}>Type</Label>
        <TypeChoice
          ref={typeRef}
          customRef={customRef}
          id={ids.type}
          type={type}
          customType={customType}
          placeholder="Select a type"
          searchLabel="Search types"
          pages={entityTypePages}
          choices={(types, prefix) => typeChoices(types, type, prefix)}
          option={(option) => ({ label: option, icon: dot(option) })}
          display={typeWithDot}
          customLabel="Custom type"
          customPlaceholder="Enter a custom type"
          errorId={typeError ? `${ids.type}-message` : undefined}
          onChange={(next) => {
            edited('type');
            setType(next.type);
            setCustomType(next.customType);
          }}
        />
        <FieldMessage id={`${ids.type}-message`} message={typeError} />
      </div>

      <div className="grid gap-2">
        <Label htmlFor={ids.metadata}>Metadata (JSON)</Label>
        <Textarea
          ref={metadataRef}
          id={ids.metadata}
          rows={4}
          spellCheck={false}
          placeholder={'{\n  "role": "mathematician"\n}'}
          className="font-mono text-[13px]"
          value={metadata}
          aria-invalid={metadataError ? true : undefined}
          aria-describedby={`${ids.metadata}-message`}
          onChange={(event) => {
            setMetadata(event.target.value);
            edited('metadata');
          }}
        />
        <p
          id={`${ids.metadata}-message`}
          className={cn('text-xs', metadataError ? 'text-destructive' : 'text-muted-foreground')}
        >
          {metadataError ?? 'Optional. A JSON object of key-value pairs.'}
        </p>
      </div>

      <fieldset
        className="grid gap-2"
        aria-describedby={observationsNote ? ids.observations : undefined}
      >
        <legend className="mb-2 text-sm leading-none font-medium">Observations</legend>
        {observationsNote ? (
          <p id={ids.observations} className="text-xs text-muted-foreground">
            {observationsNote}
          </p>
        ) : null}
        {observations.map((box, index) => (
          <div key={box.key} className="flex items-start gap-2">
            <Textarea
              ref={(element) => {
                if (element) boxRefs.current.set(box.key, element);
                else boxRefs.current.delete(box.key);
              }}
              aria-label={`Observation ${index + 1}`}
              rows={2}
              maxLength={10_000}
              placeholder="Something your agents should remember"
              value={box.text}
              onChange={(event) => {
                const text = event.target.value;
                setObservations((boxes) =>
                  boxes.map((candidate) =>
                    candidate.key === box.key ? { ...candidate, text } : candidate,
                  ),
                );
              }}
            />
            {observations.length > 1 ? (
              <Button
                variant="ghost"
                size="icon"
                className="text-muted-foreground hover:text-destructive"
                aria-label={`Remove observation ${index + 1}`}
                onClick={() => removeObservation(box.key)}
              >
                <X aria-hidden />
              </Button>
            ) : null}
          </div>
        ))}
        <Button variant="outline" size="sm" className="justify-self-start" onClick={addObservation}>
          <Plus aria-hidden />
          Add Observation
        </Button>
      </fieldset>

      <FormDialogFooter submitLabel={submitLabel} pending={pending} />
    </form>
  );
}
