import type { Webhook } from '@engram/shared';
import { ConfirmDeleteDialog } from '@/components/confirm-delete-dialog';
import { Alert } from '@/components/ui/alert';
import { useDeleteWebhook } from '../api/delete-webhook';
import { errorMessage } from '../webhook-display';

interface DeleteWebhookDialogProps {
  /** The endpoint to delete; the dialog is open while one is set. */
  webhook: Webhook | null;
  onClose: () => void;
  onDeleted: (webhook: Webhook) => void;
}

export function DeleteWebhookDialog({ webhook, onClose, onDeleted }: DeleteWebhookDialogProps) {
  const remove = useDeleteWebhook();
  return (
    <ConfirmDeleteDialog
      open={webhook !== null}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title="Delete endpoint"
      question={
        <>
          Delete <span className="font-mono text-foreground">{webhook?.url}</span>? Nothing more is
          sent to it, and its deliveries log is deleted with it. This cannot be undone.
        </>
      }
      pending={remove.isPending}
      action="Delete endpoint"
      onConfirm={() => {
        if (!webhook) return;
        remove.mutate(webhook.id, {
          onSuccess: () => {
            remove.reset();
            onDeleted(webhook);
          },
        });
      }}
    >
      {remove.isError ? (
        <Alert variant="error">{errorMessage(remove.error, 'Failed to delete the endpoint')}</Alert>
      ) : null}
    </ConfirmDeleteDialog>
  );
}
