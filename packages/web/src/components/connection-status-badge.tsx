import { cn } from '@/lib/cn';

/** The realtime connection's states (spec §4). */
export type ConnectionStatus =
  'connecting' | 'connected' | 'disconnecting' | 'disconnected' | 'unknown';

const APPEARANCE: Record<ConnectionStatus, { label: string; dot: string; pulse: boolean }> = {
  connecting: { label: 'Connecting', dot: 'bg-amber-500', pulse: true },
  connected: { label: 'Connected', dot: 'bg-emerald-500', pulse: false },
  disconnecting: { label: 'Disconnecting', dot: 'bg-amber-500', pulse: true },
  disconnected: { label: 'Disconnected', dot: 'bg-zinc-400 dark:bg-zinc-500', pulse: false },
  unknown: { label: 'Unknown', dot: 'bg-zinc-300 dark:bg-zinc-600', pulse: false },
};

export function ConnectionStatusBadge({
  status,
  className,
}: {
  status: ConnectionStatus;
  className?: string;
}) {
  const { label, dot, pulse } = APPEARANCE[status];
  return (
    <span
      role="status"
      aria-label={`Realtime connection: ${label}`}
      title={`Realtime connection: ${label}`}
      className={cn(
        'inline-flex h-7 items-center gap-2 rounded-md border border-border bg-card px-2.5 text-xs font-medium text-muted-foreground',
        className,
      )}
    >
      <span className={cn('size-2 rounded-full', dot, pulse && 'animate-pulse')} aria-hidden />
      {label}
    </span>
  );
}
