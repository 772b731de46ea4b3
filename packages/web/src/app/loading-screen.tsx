import { Spinner } from '@/components/ui/spinner';

/** Shown while the stored session is checked at start (docs/product.md, The signed-in app). */
export function LoadingScreen() {
  return (
    <div
      className="flex min-h-dvh flex-col items-center justify-center gap-3 bg-surface text-sm text-muted-foreground"
      role="status"
      aria-live="polite"
    >
      <Spinner className="size-5 text-primary" />
      <span>Loading…</span>
    </div>
  );
}
