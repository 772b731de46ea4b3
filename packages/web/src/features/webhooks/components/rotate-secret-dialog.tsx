import {
  WEBHOOK_ROTATION_OVERLAP_HOURS,
  type RotatedWebhookSecret,
  type Webhook,
} from '@engram/shared';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Alert } from '@/components/ui/alert';
import { useRotateWebhookSecret } from '../api/rotate-secret';
import { errorMessage } from '../webhook-display';

interface RotateSecretDialogProps {
  /** The endpoint whose secret to replace; the dialog is open while one is set. */
  webhook: Webhook | null;
  onClose: () => void;
  onRotated: (rotated: RotatedWebhookSecret, webhook: Webhook) => void;
}

/** Asks before replacing a signing secret, and says the old one keeps signing for a while. */
export function RotateSecretDialog({ webhook, onClose, onRotated }: RotateSecretDialogProps) {
  const rotate = useRotateWebhookSecret();
  return (
    <ConfirmDialog
      open={webhook !== null}
      onClose={() => {
        // The next endpoint asked about starts without this one's error.
        rotate.reset();
        onClose();
      }}
      title="Rotate signing secret"
      description={
        <>
          A new secret signs requests to{' '}
          <span className="font-mono text-foreground">{webhook?.url}</span> from now on. For{' '}
          {WEBHOOK_ROTATION_OVERLAP_HOURS} hours the previous secret signs them too, so your
          receiver can switch without missing a request.
        </>
      }
      pending={rotate.isPending}
      action="Rotate secret"
      onConfirm={() => {
        if (!webhook) return;
        rotate.mutate(webhook.id, {
          onSuccess: (rotated) => {
            rotate.reset();
            onRotated(rotated, webhook);
          },
        });
      }}
    >
      {rotate.isError ? (
        <Alert variant="error">{errorMessage(rotate.error, 'Failed to rotate the secret')}</Alert>
      ) : null}
    </ConfirmDialog>
  );
}
