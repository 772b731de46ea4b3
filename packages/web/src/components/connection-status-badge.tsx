import { RotateCw } from 'lucide-react';
import { cn } from '@/lib/cn';
import type { ConnectionStatus } from '@/lib/realtime';

export type { ConnectionStatus };

const APPEARANCE: Record<ConnectionStatus, { label: string; dot: string; pulse: boolean }> = {
  connecting: { label: 'Connecting', dot: 'bg-amber-500', pulse: true },
  connected: { label: 'Connected', dot: 'bg-emerald-500', pulse: false },
  disconnecting: { label: 'Disconnecting', dot: 'bg-amber-500', pulse: true },
  disconnected: { label: 'Disconnected', dot: 'bg-zinc-400 dark:bg-zinc-500', pulse: false },
  unknown: { label: 'Unknown', dot: 'bg-zinc-300 dark:bg-zinc-600', pulse: false },
};

const BASE =
  'inline-flex h-7 items-center gap-2 rounded-md border border-border bg-card px-2.5 text-xs font-medium whitespace-nowrap text-muted-foreground';

/**
 * The realtime connection's state (docs/product.md, The signed-in app; States): Connecting, Connected,
 * Disconnecting, Disconnected or Unknown. `detail` explains it on hover (e.g.
 * "Reconnecting, attempt 3 of 10"). With `onRetry` the badge is a button that
 * tries to connect again.
 */
export function ConnectionStatusBadge({
  status,
  detail,
  onRetry,
  className,
}: {
  status: ConnectionStatus;
  detail?: string;
  onRetry?: () => void;
  className?: string;
}) {
  const { label, dot, pulse } = APPEARANCE[status];
  const description = `Realtime connection: ${label}${detail ? `. ${detail}` : ''}`;
  const content = (
    <>
      <span className={cn('size-2 rounded-full', dot, pulse && 'animate-pulse')} aria-hidden />
      {/* On a phone the dot alone (the header also holds the space switcher); the status keeps its name. */}
      <span className="max-sm:sr-only">{label}</span>
    </>
  );
  if (onRetry) {
    return (
      <span role="status" aria-label={`Realtime connection: ${label}`} className="inline-flex">
        <button
          type="button"
          onClick={onRetry}
          title={`${description}. Click to reconnect.`}
          className={cn(
            BASE,
            'cursor-pointer outline-none transition-colors hover:bg-muted hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring',
            className,
          )}
        >
          {content}
          <RotateCw className="size-3.5" aria-hidden />
          <span className="sr-only">Reconnect</span>
        </button>
      </span>
    );
  }
  return (
    <span
      role="status"
      aria-label={`Realtime connection: ${label}`}
      title={description}
      className={cn(BASE, className)}
    >
      {content}
    </span>
  );
}
