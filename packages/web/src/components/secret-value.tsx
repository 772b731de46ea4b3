import { Eye, EyeOff } from 'lucide-react';
import { useState } from 'react';
import { CopyButton } from '@/components/copy-button';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';

interface SecretValueProps {
  /** What is shown while hidden: the first 6 and last 4 characters around an ellipsis. */
  masked: string;
  /** The full key, when this session knows it; without it there is nothing to reveal or copy. */
  secret?: string | undefined;
  /** The value box's test id. */
  testId: string;
  /** The value box's background, and anything else it needs. */
  className?: string;
  frameClassName?: string;
}

/**
 * A key in a monospace box, masked, with Show key / Hide key and Copy key
 * when the full key is known (an API key's card, the personal key's card).
 * Give it the key as React `key` so a new key starts hidden.
 */
export function SecretValue({
  masked,
  secret,
  testId,
  className,
  frameClassName,
}: SecretValueProps) {
  const [revealed, setRevealed] = useState(false);
  const showing = revealed && secret !== undefined;
  return (
    <div className={cn('flex items-center gap-2', frameClassName)}>
      <code
        data-testid={testId}
        title={secret === undefined ? 'The full key was shown only when it was created' : undefined}
        className={cn(
          'min-w-0 flex-1 rounded-md border border-border px-3 py-1.5 font-mono text-[13px] leading-5 text-foreground',
          showing ? 'break-all' : 'truncate',
          className,
        )}
      >
        {showing ? secret : masked}
      </code>
      {secret !== undefined ? (
        <>
          <Button
            variant="outline"
            size="icon"
            className="size-8"
            aria-label={showing ? 'Hide key' : 'Show key'}
            title={showing ? 'Hide key' : 'Show key'}
            aria-pressed={showing}
            onClick={() => setRevealed((current) => !current)}
          >
            {showing ? <EyeOff aria-hidden /> : <Eye aria-hidden />}
          </Button>
          <CopyButton value={secret} label="Copy key" className="size-8" />
        </>
      ) : null}
    </div>
  );
}
