import type { Relation } from '@engram/shared';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { formatCount } from '@/lib/format';
import { RelationshipRow } from './relationship-row';
import type { SelectedEntity } from './selected-entity-panel';

/** The entity's relations, each as the entity at its other end; a click selects that entity. */
export function RelationshipsCard({
  entityId,
  relations,
  selectedId,
  onSelect,
}: {
  entityId: string;
  /** Undefined while loading. */
  relations: Relation[] | undefined;
  selectedId: string | null;
  onSelect: (entity: SelectedEntity) => void;
}) {
  return (
    <Card className="min-w-0" role="region" aria-labelledby="relationships-heading">
      <div className="flex items-center justify-between gap-2 px-4 pt-4 pb-3">
        <h2 id="relationships-heading" className="text-base font-semibold">
          Relationships
        </h2>
        {relations ? (
          <span className="text-xs text-muted-foreground tabular-nums">
            {formatCount(relations.length)}
          </span>
        ) : null}
      </div>
      <div className="border-t border-border">
        {relations === undefined ? (
          <div role="status" className="flex items-center justify-center p-6">
            <Spinner />
            <span className="sr-only">Loading entity data...</span>
          </div>
        ) : relations.length === 0 ? (
          <p className="p-6 text-center text-sm text-muted-foreground">No relationships found</p>
        ) : (
          <ul className="divide-y divide-border" aria-label="Relationships">
            {relations.map((relation) => {
              const outgoing = relation.fromEntityId === entityId;
              const other = outgoing ? relation.toEntity : relation.fromEntity;
              return (
                <RelationshipRow
                  key={relation.id}
                  relation={relation}
                  outgoing={outgoing}
                  other={other}
                  selected={selectedId === other.id}
                  onSelect={() => onSelect(other)}
                />
              );
            })}
          </ul>
        )}
      </div>
    </Card>
  );
}
