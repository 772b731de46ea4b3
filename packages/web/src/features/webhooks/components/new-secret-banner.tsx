import { WEBHOOK_SIGNATURE_HEADER } from '@engram/shared';
import { OneTimeSecret } from '@/components/one-time-secret';
import { formatDateTime } from '@/lib/format';

export interface NewSecret {
  webhookId: string;
  url: string;
  secret: string;
  /** Set after a rotation: until then the previous secret signs too. */
  previousSecretExpiresAt?: string;
}

/**
 * The one time a signing secret is on screen: after adding an endpoint or
 * rotating its secret, until dismissed. Nothing brings it back.
 */
export function NewSecretBanner({
  newSecret,
  onDismiss,
}: {
  newSecret: NewSecret;
  onDismiss: () => void;
}) {
  const { url, previousSecretExpiresAt } = newSecret;
  const endpoint = <span className="font-mono text-[13px]">{url}</span>;
  return (
    <OneTimeSecret
      title={previousSecretExpiresAt !== undefined ? 'Signing secret rotated' : 'Endpoint added'}
      description={
        previousSecretExpiresAt !== undefined ? (
          <>
            Requests to {endpoint} are signed with this secret now. The previous secret signs them
            too until <span className="font-medium">{formatDateTime(previousSecretExpiresAt)}</span>
            , so your receiver can switch in the meantime.
          </>
        ) : (
          <>
            Every request to {endpoint} carries an {WEBHOOK_SIGNATURE_HEADER} header made with this
            secret. Check it in your receiver.
          </>
        )
      }
      secret={newSecret.secret}
      testId="new-webhook-secret"
      noun="secret"
      onDismiss={onDismiss}
    />
  );
}
