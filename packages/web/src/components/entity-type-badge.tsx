import { entityTypeColor } from '@engram/shared';
import type { ComponentProps } from 'react';
import { cn } from '@/lib/cn';

/**
 * An entity type in its catalog colour (docs/architecture.md, Web): the same
 * colour the graph's node and legend use, so a type reads alike everywhere.
 */
export function EntityTypeBadge({
  type,
  className,
  ...props
}: { type: string } & Omit<ComponentProps<'span'>, 'children'>) {
  const color = entityTypeColor(type);
  return (
    <span
      className={cn(
        'inline-flex w-fit max-w-full shrink-0 items-center gap-1.5 truncate rounded-md border px-2 py-0.5 text-xs font-medium',
        className,
      )}
      style={{
        color,
        borderColor: `color-mix(in srgb, ${color} 35%, transparent)`,
        backgroundColor: `color-mix(in srgb, ${color} 12%, transparent)`,
      }}
      {...props}
    >
      <span
        aria-hidden
        className="size-1.5 shrink-0 rounded-full"
        style={{ backgroundColor: color }}
      />
      <span className="truncate">{type}</span>
    </span>
  );
}
