import { Eye } from 'lucide-react';
import { DetailRow, Panel } from '@/components/graph-canvas';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { Button } from '@/components/ui/button';
import { formatCount } from '@/lib/format';

/** An entity chosen on the page (a relationship's other end, or the entity itself in the graph). */
export interface SelectedEntity {
  id: string;
  name: string;
  type: string;
}

/** The Selected Entity side panel: the chosen entity's facts and View Entity. */
export function SelectedEntityPanel({
  selected,
  observationsCount,
  onView,
  className,
}: {
  className?: string;
  selected: SelectedEntity | null;
  observationsCount: number | undefined;
  onView: (id: string) => void;
}) {
  return (
    <Panel title="Selected Entity" className={className}>
      {selected ? (
        <div className="grid gap-4">
          <dl className="grid gap-3">
            <DetailRow label="Name">
              <span className="font-medium wrap-anywhere">{selected.name}</span>
            </DetailRow>
            <DetailRow label="Type">
              <EntityTypeBadge type={selected.type} />
            </DetailRow>
            {observationsCount !== undefined ? (
              <DetailRow label="Observations">
                <span className="tabular-nums">{formatCount(observationsCount)}</span>
              </DetailRow>
            ) : null}
            <DetailRow label="ID">
              <code className="font-mono text-xs break-all text-muted-foreground">
                {selected.id}
              </code>
            </DetailRow>
          </dl>
          <Button variant="outline" onClick={() => onView(selected.id)}>
            <Eye aria-hidden />
            View Entity
          </Button>
        </div>
      ) : (
        <p className="text-sm text-muted-foreground">
          Select a relationship, or this entity in the graph, to see it here.
        </p>
      )}
    </Panel>
  );
}
