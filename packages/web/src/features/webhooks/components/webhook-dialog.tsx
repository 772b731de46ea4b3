import { WEBHOOK_ALL_EVENTS, type CreatedWebhook, type Webhook } from '@engram/shared';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { FormDialogFooter } from '@/components/form-dialog-footer';
import { Alert } from '@/components/ui/alert';
import { Dialog, DialogContent, DialogHeading } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { ApiError } from '@/lib/api-client';
import { useCreateWebhook } from '../api/create-webhook';
import { useUpdateWebhook } from '../api/update-webhook';
import { errorMessage, eventsToSend, fieldError } from '../webhook-display';
import { EventsPicker } from './events-picker';
import { SpacePicker } from './space-picker';

const DIALOG = 'max-h-[calc(100dvh-2rem)] overflow-y-auto';

interface CreateWebhookDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (created: CreatedWebhook) => void;
}

/** Adds an endpoint: where to send, which events, from which spaces. */
export function CreateWebhookDialog({ open, onOpenChange, onCreated }: CreateWebhookDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className={DIALOG} guardInput>
        {/* The content unmounts on close, so every opening starts with an empty form. */}
        <WebhookForm onDone={(created) => onCreated(created as CreatedWebhook)} />
      </DialogContent>
    </Dialog>
  );
}

interface EditWebhookDialogProps {
  /** The endpoint to change; the dialog is open while one is set. */
  webhook: Webhook | null;
  onClose: () => void;
  onSaved: (webhook: Webhook) => void;
}

/** Changes an endpoint's URL, description or events; its space and secret stay. */
export function EditWebhookDialog({ webhook, onClose, onSaved }: EditWebhookDialogProps) {
  return (
    <Dialog open={webhook !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className={DIALOG} guardInput>
        {webhook ? <WebhookForm webhook={webhook} onDone={onSaved} /> : null}
      </DialogContent>
    </Dialog>
  );
}

/** Only what makes the request pointless is checked here; the server judges the rest (https, private addresses). */
function urlProblem(url: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed === '') return 'URL is required';
  if (!URL.canParse(trimmed) || !/^https?:$/.test(new URL(trimmed).protocol)) {
    return 'URL must be an absolute http(s) URL, like https://example.com/engram';
  }
  return undefined;
}

/** The form of both dialogs: empty to add an endpoint, filled from `webhook` to change one. */
function WebhookForm({ webhook, onDone }: { webhook?: Webhook; onDone: (saved: Webhook) => void }) {
  const editing = webhook !== undefined;
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [events, setEvents] = useState(() => {
    const all = !webhook || webhook.events.includes(WEBHOOK_ALL_EVENTS);
    return { all, picked: all ? [] : [...(webhook?.events ?? [])] };
  });
  const [space, setSpace] = useState<{ oneSpace: boolean; value: string | null }>({
    oneSpace: false,
    value: null,
  });
  const [tried, setTried] = useState(false);
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const request = editing ? update : create;

  const problems = {
    url: urlProblem(url),
    events: !events.all && events.picked.length === 0 ? 'Choose at least one event' : undefined,
    space: space.oneSpace && !space.value ? 'Choose a space, or All spaces' : undefined,
  };
  const failed = request.error;
  // A 400 names its field: shown under it, not as a banner too.
  const urlError = (tried ? problems.url : undefined) ?? fieldError(failed, 'url');
  const eventsError = (tried ? problems.events : undefined) ?? fieldError(failed, 'events');
  const spaceError = (tried ? problems.space : undefined) ?? fieldError(failed, 'space');
  const descriptionError = fieldError(failed, 'description');
  const bannerError =
    failed && !urlError && !eventsError && !spaceError && !descriptionError ? failed : null;

  function edited() {
    if (request.isError) request.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (problems.url || problems.events || request.isPending) return;
    const common = { url: url.trim(), events: eventsToSend(events.all, events.picked) };
    const trimmed = description.trim();
    if (webhook) {
      // An emptied description is cleared (null), not left as it was.
      update.mutate(
        { id: webhook.id, input: { ...common, description: trimmed || null } },
        { onSuccess: onDone },
      );
      return;
    }
    if (problems.space) return;
    create.mutate(
      {
        ...common,
        ...(trimmed ? { description: trimmed } : {}),
        ...(space.oneSpace && space.value ? { space: space.value } : {}),
      },
      { onSuccess: onDone },
    );
  }

  return (
    <form noValidate onSubmit={submit} className="grid gap-4">
      <DialogHeading
        title={editing ? 'Edit endpoint' : 'Add endpoint'}
        description={
          editing
            ? 'Changes apply to the next event sent. The signing secret stays the same.'
            : 'Engram sends each change to your graph to this URL as a signed JSON POST. The signing secret is shown once, right after the endpoint is added.'
        }
      />
      <FormField
        label="Endpoint URL"
        type="url"
        inputMode="url"
        placeholder="https://example.com/engram-webhook"
        autoComplete="off"
        spellCheck={false}
        maxLength={2048}
        autoFocus
        value={url}
        onChange={(event) => {
          setUrl(event.target.value);
          edited();
        }}
        error={urlError}
      />
      <FormField
        label="Description (optional)"
        placeholder="e.g. Sync to the CRM"
        autoComplete="off"
        maxLength={200}
        value={description}
        onChange={(event) => {
          setDescription(event.target.value);
          edited();
        }}
        error={descriptionError}
      />
      <EventsPicker
        all={events.all}
        picked={events.picked}
        onChange={(next) => {
          setEvents(next);
          edited();
        }}
        error={eventsError}
      />
      {webhook ? (
        <p className="text-sm">
          <span className="font-medium">Spaces</span>{' '}
          <span className="text-muted-foreground">
            {webhook.space ? (
              <>
                · only <span className="font-mono text-foreground">{webhook.space}</span>
              </>
            ) : (
              '· all spaces'
            )}{' '}
            (set when the endpoint was added)
          </span>
        </p>
      ) : (
        <SpacePicker
          oneSpace={space.oneSpace}
          value={space.value}
          onChange={(next) => {
            setSpace(next);
            edited();
          }}
          error={spaceError}
        />
      )}
      {bannerError ? (
        <Alert variant="error">
          {errorMessage(
            bannerError,
            editing ? 'Failed to save the endpoint' : 'Failed to add the endpoint',
          )}
          {bannerError instanceof ApiError && bannerError.status === 402 ? (
            <>
              {' '}
              <Link to="/pricing" className="font-medium underline underline-offset-4">
                See plans
              </Link>
            </>
          ) : null}
        </Alert>
      ) : null}
      <FormDialogFooter
        submitLabel={editing ? 'Save changes' : 'Add endpoint'}
        pending={request.isPending}
      />
    </form>
  );
}
