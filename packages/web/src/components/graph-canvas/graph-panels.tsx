import { entityTypeColor } from '@engram/shared';
import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import { cn } from '@/lib/cn';
import { formatCount } from '@/lib/format';
import type { TypeCount } from './graph-view';

/** A titled side card of the graph screens. */
export function Panel({
  title,
  children,
  className,
  action,
}: {
  title: string;
  children: ReactNode;
  className?: string;
  action?: ReactNode;
}) {
  const headingId = `panel-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <Card className={cn('p-4', className)} role="region" aria-labelledby={headingId}>
      <div className="flex items-center justify-between gap-2">
        <h2 id={headingId} className="text-sm font-semibold">
          {title}
        </h2>
        {action}
      </div>
      <div className="mt-3">{children}</div>
    </Card>
  );
}

/** The Node Types legend: each type in the graph in its catalog colour, with its count. */
export function NodeTypesLegend({
  types,
  className,
  bare = false,
}: {
  types: TypeCount[];
  className?: string;
  /** Without the card, for a strip under a canvas. */
  bare?: boolean;
}) {
  const list = (
    <ul
      className={cn(
        bare ? 'flex flex-wrap gap-x-4 gap-y-1.5' : 'grid gap-2',
        'text-sm',
        bare ? className : undefined,
      )}
      aria-label={bare ? 'Node Types' : undefined}
    >
      {types.map(({ type, count }) => (
        <li key={type} className="flex min-w-0 items-center gap-2">
          <span
            aria-hidden
            className="size-2.5 shrink-0 rounded-full"
            style={{ backgroundColor: entityTypeColor(type) }}
          />
          <span className="min-w-0 truncate">{type}</span>
          <span className={cn('text-xs text-muted-foreground tabular-nums', !bare && 'ml-auto')}>
            {formatCount(count)}
          </span>
        </li>
      ))}
    </ul>
  );
  if (bare) return list;
  return (
    <Panel title="Node Types" className={className}>
      {types.length === 0 ? (
        <p className="text-sm text-muted-foreground">No node types yet.</p>
      ) : (
        list
      )}
    </Panel>
  );
}

/** One label/value row of a details list. */
export function DetailRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="min-w-0 text-sm">{children}</dd>
    </div>
  );
}
