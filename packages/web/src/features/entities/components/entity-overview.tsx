import type { Entity, Relation } from '@engram/shared';
import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import {
  OBSERVATION_TYPE,
  toGraphView,
  typeCounts,
  type GraphNodeView,
} from '@/components/graph-canvas';
import type { useEntityGraph } from '../api/get-entity-graph';
import { entityPath } from '../display';
import { fallbackGraph } from '../entity-graph';
import { AliasesCard } from './aliases-card';
import { ConnectedEntitiesCard } from './connected-entities-card';
import { MetadataCard } from './metadata-card';
import { ObservationsCard } from './observations-card';
import { PossibleDuplicatesCard } from './possible-duplicates-card';
import { RelationshipsCard } from './relationships-card';
import { SelectedEntityPanel, type SelectedEntity } from './selected-entity-panel';

/** What the entity page read: the entity, its relations and its neighbourhood graph. */
export interface EntityReads {
  entity: Entity;
  /** Undefined while loading; empty when the call failed (docs/product.md, States). */
  relations: Relation[] | undefined;
  graph: ReturnType<typeof useEntityGraph>;
}

/**
 * The Overview tab: the neighbourhood graph, its possible duplicates (when
 * any), the Selected Entity panel, the entity's aliases and metadata, the
 * relationships and the observations. On phones the panels follow the
 * graph; on wide screens they are the side column.
 */
export function EntityOverview({
  entity,
  relations,
  graph,
  selected,
  onSelect,
}: EntityReads & {
  selected: SelectedEntity | null;
  onSelect: (entity: SelectedEntity) => void;
}) {
  const navigate = useNavigate();
  // The neighbourhood, or the fallback graph when the graph call fails (docs/product.md, States).
  const usingFallback = graph.isError && !graph.data;
  // Kept apart so a refetched entity (new object, same graph) does not hand the canvas a new graph.
  const neighbourhood = useMemo(() => (graph.data ? toGraphView(graph.data) : null), [graph.data]);
  const fallback = useMemo(
    () => (usingFallback ? fallbackGraph(entity) : null),
    [usingFallback, entity],
  );
  const view = neighbourhood ?? fallback;
  const types = useMemo(() => (view ? typeCounts(view.nodes) : []), [view]);

  function activate(node: GraphNodeView) {
    if (node.id === entity.id) {
      onSelect({ id: entity.id, name: entity.name, type: entity.type });
    } else if (node.type !== OBSERVATION_TYPE || !usingFallback) {
      void navigate(entityPath(node.id));
    }
  }

  const selectedCount =
    selected === null
      ? undefined
      : selected.id === entity.id
        ? entity.observationsCount
        : view?.nodes.find((node) => node.id === selected.id)?.observationsCount;

  return (
    <div
      role="tabpanel"
      id="entity-tab-overview"
      aria-labelledby="entity-tab-overview-tab"
      className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]"
    >
      <ConnectedEntitiesCard
        className="lg:col-start-1"
        entity={entity}
        view={view}
        types={types}
        usingFallback={usingFallback}
        selectedId={selected?.id ?? entity.id}
        onNodeActivate={activate}
      />
      <div className="grid content-start gap-6 lg:col-start-2 lg:row-span-3 lg:row-start-1">
        <PossibleDuplicatesCard entityId={entity.id} />
        <SelectedEntityPanel
          selected={selected}
          observationsCount={selectedCount}
          onView={(id) => void navigate(entityPath(id))}
        />
        <AliasesCard entity={entity} />
        <MetadataCard metadata={entity.metadata} />
      </div>
      <div className="min-w-0 lg:col-start-1">
        <RelationshipsCard
          entityId={entity.id}
          relations={relations}
          selectedId={selected?.id ?? null}
          onSelect={onSelect}
        />
      </div>
      <div className="min-w-0 lg:col-start-1">
        <ObservationsCard entity={entity} />
      </div>
    </div>
  );
}
