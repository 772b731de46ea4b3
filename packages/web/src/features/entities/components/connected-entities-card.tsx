import type { Entity } from '@engram/shared';
import {
  GraphCanvas,
  NodeTypesLegend,
  type GraphNodeView,
  type GraphView,
  type TypeCount,
} from '@/components/graph-canvas';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';

/** The entity screen's canvas height, CSS px (docs/product.md, Numbers). */
const GRAPH_HEIGHT = 400;

/**
 * Connected Entities: the entity's neighbourhood on the graph canvas, the
 * entity pinned at the centre, with its node types; the fallback graph says
 * it is one (docs/product.md, States).
 */
export function ConnectedEntitiesCard({
  entity,
  view,
  types,
  usingFallback,
  selectedId,
  onNodeActivate,
  className,
}: {
  entity: Pick<Entity, 'id' | 'name'>;
  /** Null while the graph loads. */
  view: GraphView | null;
  types: TypeCount[];
  usingFallback: boolean;
  selectedId: string;
  onNodeActivate: (node: GraphNodeView) => void;
  className?: string;
}) {
  const connected = view !== null && view.nodes.length > 1;
  return (
    <Card
      className={cn('min-w-0 overflow-hidden', className)}
      role="region"
      aria-labelledby="connected-heading"
    >
      <div className="flex flex-wrap items-center justify-between gap-2 px-4 pt-4 pb-3">
        <h2 id="connected-heading" className="text-base font-semibold">
          Connected Entities
        </h2>
        {connected ? <NodeTypesLegend types={types} bare className="text-xs" /> : null}
      </div>
      {usingFallback && connected ? (
        <p className="border-t border-border bg-muted/50 px-4 py-2 text-xs text-muted-foreground">
          Connected entities could not be loaded; showing this entity’s observations instead.
        </p>
      ) : null}
      <div className="border-t border-border">
        {view === null ? (
          <div
            role="status"
            className="flex items-center justify-center gap-2 text-sm text-muted-foreground"
            style={{ height: GRAPH_HEIGHT }}
          >
            <Spinner />
            <span className="sr-only">Loading entity data...</span>
          </div>
        ) : !connected ? (
          <div
            className="flex items-center justify-center px-6 text-sm text-muted-foreground"
            style={{ height: GRAPH_HEIGHT }}
          >
            No connected entities found
          </div>
        ) : (
          <GraphCanvas
            graph={view}
            height={GRAPH_HEIGHT}
            label={`Entities connected to ${entity.name}`}
            pinnedId={entity.id}
            selectedId={selectedId}
            onNodeActivate={onNodeActivate}
          />
        )}
      </div>
    </Card>
  );
}
