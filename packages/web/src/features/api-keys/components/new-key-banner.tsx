import { OneTimeSecret } from '@/components/one-time-secret';
import { formatDate } from '../key-display';

export interface NewKey {
  name: string;
  apiKey: string;
  /** Set after a roll: when the key it replaced stops working. */
  previousKeyExpiresAt?: string;
}

/**
 * The one time a full key is on screen (docs/product.md, The signed-in app): after creating or rolling,
 * until dismissed. Nothing brings it back; the card can still reveal the key
 * for the rest of this session.
 */
export function NewKeyBanner({ newKey, onDismiss }: { newKey: NewKey; onDismiss: () => void }) {
  const { name, previousKeyExpiresAt } = newKey;
  return (
    <OneTimeSecret
      title={previousKeyExpiresAt ? 'API key rolled' : 'API key created'}
      description={
        previousKeyExpiresAt ? (
          <>
            The new key for <span className="font-medium">{name}</span> works now. The previous key
            keeps working until {formatDate(previousKeyExpiresAt)}.
          </>
        ) : (
          <>
            Your new key <span className="font-medium">{name}</span> is ready to use.
          </>
        )
      }
      secret={newKey.apiKey}
      testId="new-api-key"
      noun="key"
      onDismiss={onDismiss}
    />
  );
}
