import type { Entity } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { Alert } from '@/components/ui/alert';
import { Dialog, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { addObservations } from '../api/add-observations';
import { useCreateEntity } from '../api/create-entity';
import { entityQueryOptions, useEntity } from '@/lib/api/entities';
import { useSpaceSlug } from '@/lib/space';

import { updateEntity } from '../api/update-entity';
import { formatCount, serverReason } from '../display';
import {
  emptyEntityForm,
  entityFormOf,
  observationsToSend,
  type EntityFormField,
  type EntityPayload,
} from '../entity-form-rules';
import { EntityForm, type FieldError } from './entity-form';

export type EntityFormDialogState = { mode: 'create' } | { mode: 'edit'; entity: Entity } | null;

interface EntityFormDialogProps {
  state: EntityFormDialogState;
  onClose: () => void;
}

const DIALOG_CLASS = 'max-h-[calc(100dvh-2rem)] overflow-y-auto sm:max-w-xl';

/** Create Entity and Edit Entity (docs/product.md, The signed-in app): the entity form in a dialog. */
export function EntityFormDialog({ state, onClose }: EntityFormDialogProps) {
  return (
    <Dialog open={state !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className={DIALOG_CLASS} guardInput>
        {/* The content unmounts on close: every opening starts from the entity as it is. */}
        {state?.mode === 'create' ? <CreateEntity onDone={onClose} /> : null}
        {state?.mode === 'edit' ? <EditEntity entity={state.entity} onDone={onClose} /> : null}
      </DialogContent>
    </Dialog>
  );
}

/** A field the server named in its refusal (e.g. 409 on `name`), if the form has it. */
function fieldErrorOf(error: unknown): FieldError | null {
  if (!(error instanceof ApiError)) return null;
  for (const field of ['name', 'type', 'metadata'] as EntityFormField[]) {
    const message = error.detailFor(field);
    if (message) return { field, message };
  }
  return null;
}

function toastSaveFailed(error: unknown) {
  toast.error('Failed to save entity', { description: serverReason(error) });
}

function CreateEntity({ onDone }: { onDone: () => void }) {
  const create = useCreateEntity();
  const [initial] = useState(emptyEntityForm);
  return (
    <>
      <DialogHeading title="Create Entity" description="Add an entity to your knowledge graph." />
      <EntityForm
        initial={initial}
        submitLabel="Create Entity"
        pending={create.isPending}
        serverError={fieldErrorOf(create.error)}
        onSubmit={(input) =>
          create.mutate(input, {
            onSuccess: () => {
              toast.success('Entity created successfully');
              onDone();
            },
            onError: toastSaveFailed,
          })
        }
      />
    </>
  );
}

function EditEntity({ entity, onDone }: { entity: Entity; onDone: () => void }) {
  // The full entity: a list row may hold fewer observations than the entity has.
  const detail = useEntity(entity.id);
  return (
    <>
      <DialogHeading
        title="Edit Entity"
        description={
          <>
            Change the name, type, metadata or observations of{' '}
            <span className="font-medium text-foreground">{entity.name}</span>.
          </>
        }
      />
      {/* A cached copy that may be out of date waits for the server's answer. */}
      {detail.data && (detail.isFetchedAfterMount || !detail.isStale) ? (
        <EditEntityForm loaded={detail.data} onDone={onDone} />
      ) : detail.isError ? (
        <Alert variant="error">
          {detail.error instanceof ApiError && detail.error.status === 404
            ? 'Entity not found'
            : 'Failed to load entity data'}
        </Alert>
      ) : (
        <div
          role="status"
          className="flex items-center justify-center gap-2 py-10 text-sm text-muted-foreground"
        >
          <Spinner />
          Loading entity...
        </div>
      )}
    </>
  );
}

function EditEntityForm({ loaded, onDone }: { loaded: Entity; onDone: () => void }) {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  // What the person was shown when the form opened; live refreshes do not reset the form.
  const [shown] = useState(loaded);
  const partial = shown.observationsTruncated === true;
  const [initial] = useState(() => {
    const values = entityFormOf(shown);
    // Too many observations to list: the form adds new ones and keeps the rest.
    return partial ? { ...values, observations: [''] } : values;
  });

  const save = useMutation({
    mutationFn: async (input: EntityPayload) => {
      const { name, type, metadata } = input;
      if (partial) {
        const updated = await updateEntity(space, shown.id, { name, type, metadata });
        const known = new Set(shown.observations.map((observation) => observation.content));
        const added = input.observations.filter((text) => !known.has(text));
        return added.length ? (await addObservations(space, shown.id, added)).entity : updated;
      }
      // The latest list, so observations added meanwhile (by an agent) are kept.
      const latest = await queryClient
        .fetchQuery({ ...entityQueryOptions(space, shown.id), staleTime: 0 })
        .catch(() => shown);
      const observations = observationsToSend(
        shown.observations,
        input.observations,
        latest.observations,
      );
      return updateEntity(space, shown.id, {
        name,
        type,
        metadata,
        ...(observations ? { observations } : {}),
      });
    },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(shown.id) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
      ]),
  });

  return (
    <EntityForm
      initial={initial}
      submitLabel="Save Changes"
      pending={save.isPending}
      serverError={fieldErrorOf(save.error)}
      observationsNote={
        partial
          ? `This entity has ${formatCount(shown.observationsCount)} observations, too many to edit here. New observations you write are added; the others are kept.`
          : undefined
      }
      onSubmit={(input) =>
        save.mutate(input, {
          onSuccess: () => {
            toast.success('Entity updated successfully');
            onDone();
          },
          onError: toastSaveFailed,
        })
      }
    />
  );
}
