import type { ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';

/** A screen's data could not be read: what failed, and 'Try again' beside it. */
export function LoadErrorAlert({
  children,
  onRetry,
}: {
  children: ReactNode;
  onRetry: () => void;
}) {
  return (
    <Alert variant="error">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
        <span>{children}</span>
        <button
          type="button"
          className="cursor-pointer font-medium underline underline-offset-4"
          onClick={onRetry}
        >
          Try again
        </button>
      </div>
    </Alert>
  );
}
