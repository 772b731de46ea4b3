import { CircleCheck, TriangleAlert } from 'lucide-react';
import { useId } from 'react';
import { Button } from '@/components/ui/button';
import { formatDate } from '../key-display';
import { CopyButton } from '@/components/copy-button';

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
  const titleId = useId();
  const previousKeyExpiresAt = newKey.previousKeyExpiresAt;
  return (
    <section
      aria-labelledby={titleId}
      className="grid gap-3 rounded-lg border border-success/30 bg-success-soft p-4 text-success-soft-foreground shadow-xs sm:p-5"
    >
      <div className="flex items-start gap-3">
        <CircleCheck className="mt-0.5 size-5 shrink-0" aria-hidden />
        <div className="grid min-w-0 flex-1 gap-1">
          <h2 id={titleId} className="text-sm font-semibold">
            {previousKeyExpiresAt ? 'API key rolled' : 'API key created'}
          </h2>
          <p className="text-sm">
            {previousKeyExpiresAt ? (
              <>
                The new key for <span className="font-medium">{newKey.name}</span> works now. The
                previous key keeps working until {formatDate(previousKeyExpiresAt)}.
              </>
            ) : (
              <>
                Your new key <span className="font-medium">{newKey.name}</span> is ready to use.
              </>
            )}
          </p>
        </div>
        <Button
          variant="ghost"
          size="sm"
          className="-my-1 -mr-2 shrink-0 text-success-soft-foreground hover:bg-success/10"
          onClick={onDismiss}
        >
          Dismiss
        </Button>
      </div>
      <div className="grid gap-3 sm:pl-8">
        <div className="flex items-start gap-2">
          <code
            data-testid="new-api-key"
            className="min-w-0 flex-1 rounded-md border border-success/30 bg-card px-3 py-2 font-mono text-[13px] leading-5 break-all text-foreground select-all"
          >
            {newKey.apiKey}
          </code>
          <CopyButton value={newKey.apiKey} label="Copy" showLabel className="h-9" />
        </div>
        <p className="flex items-start gap-1.5 text-sm font-medium">
          <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
          Save this key now - you won&apos;t be able to see it again!
        </p>
      </div>
    </section>
  );
}
