import { Alert } from '@/components/ui/alert';

/** A section that could not load (spec §8 "Billing loads"), with a way to try again. */
export function RetryAlert({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Alert variant="error">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
        <span>{message}</span>
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
