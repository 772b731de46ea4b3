import { CollapsibleText } from '@/components/collapsible-text';
import type { Entity } from '@engram/shared';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { formatCount, formatDate } from '@/lib/format';
import { ValidityNote } from './validity-note';

/** The entity's observations as the entity read gave them, with a note when that list is cut. */
export function ObservationsCard({ entity }: { entity: Entity }) {
  const { observations } = entity;
  return (
    <Card className="min-w-0" role="region" aria-labelledby="observations-heading">
      <div className="flex items-center justify-between gap-2 px-4 pt-4 pb-3">
        <h2 id="observations-heading" className="text-base font-semibold">
          Observations
        </h2>
        <span className="text-xs text-muted-foreground tabular-nums">
          {formatCount(entity.observationsCount)}
        </span>
      </div>
      <div className="border-t border-border">
        {observations.length === 0 ? (
          <p className="p-6 text-center text-sm text-muted-foreground">No observations found</p>
        ) : (
          <ul className="divide-y divide-border" aria-label="Observations">
            {observations.map((observation) => (
              <li key={observation.id} className="grid gap-1.5 px-4 py-3">
                <CollapsibleText text={observation.content} className="text-sm" />
                <div className="flex flex-wrap items-center gap-2 text-xs text-muted-foreground">
                  <span>{formatDate(observation.createdAt)}</span>
                  <ValidityNote of={observation} />
                  {observation.metadata && Object.keys(observation.metadata).length > 0 ? (
                    <Badge variant="outline">Has metadata</Badge>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
        {entity.observationsTruncated ? (
          <p className="border-t border-border px-4 py-2 text-xs text-muted-foreground">
            Showing the first {formatCount(observations.length)} of{' '}
            {formatCount(entity.observationsCount)} observations.
          </p>
        ) : null}
      </div>
    </Card>
  );
}
