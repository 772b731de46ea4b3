import { CircleCheck, TriangleAlert } from 'lucide-react';
import { useId, type ReactNode } from 'react';
import { CopyButton } from '@/components/copy-button';
import { Button } from '@/components/ui/button';

interface OneTimeSecretProps {
  title: string;
  /** What was made and how to use it; the line under the title. */
  description: ReactNode;
  secret: string;
  /** On the secret's <code>, for the e2e tests that read it. */
  testId: string;
  /** What the secret is called in the warning: "Save this {noun} now". */
  noun: string;
  onDismiss: () => void;
}

/**
 * The one time a secret (an API key, a webhook signing secret) is on screen,
 * until dismissed: the server keeps only its hash, so nothing brings it back.
 */
export function OneTimeSecret({
  title,
  description,
  secret,
  testId,
  noun,
  onDismiss,
}: OneTimeSecretProps) {
  const titleId = useId();
  return (
    <section
      aria-labelledby={titleId}
      className="grid gap-3 rounded-lg border border-success/30 bg-success-soft p-4 text-success-soft-foreground shadow-xs sm:p-5"
    >
      <div className="flex items-start gap-3">
        <CircleCheck className="mt-0.5 size-5 shrink-0" aria-hidden />
        <div className="grid min-w-0 flex-1 gap-1">
          <h2 id={titleId} className="text-sm font-semibold">
            {title}
          </h2>
          {/* wrap-anywhere: a description may quote a long URL or name. */}
          <p className="text-sm wrap-anywhere">{description}</p>
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
            data-testid={testId}
            className="min-w-0 flex-1 rounded-md border border-success/30 bg-card px-3 py-2 font-mono text-[13px] leading-5 break-all text-foreground select-all"
          >
            {secret}
          </code>
          <CopyButton value={secret} label="Copy" showLabel className="h-9" />
        </div>
        <p className="flex items-start gap-1.5 text-sm font-medium">
          <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
          {`Save this ${noun} now - you won't be able to see it again!`}
        </p>
      </div>
    </section>
  );
}
