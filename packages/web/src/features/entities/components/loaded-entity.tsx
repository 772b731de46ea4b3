import type { Entity, Relation } from '@engram/shared';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import type { useEntityGraph } from '../api/get-entity-graph';
import { EntityBackLink } from './entity-back-link';
import { EntityHeader } from './entity-header';
import { EntityHistory } from './entity-history';
import { EntityOverview } from './entity-overview';
import { entityTabOf, EntityTabs, type EntityTab } from './entity-tabs';
import type { SelectedEntity } from './selected-entity-panel';

/**
 * The entity page once the entity is read: its header, then the Overview or
 * History tab. The selection lives here, so it outlasts a visit to History.
 */
export function LoadedEntity({
  entity,
  relations,
  graph,
  refreshing,
  onRefresh,
}: {
  entity: Entity;
  /** Undefined while loading; empty when the call failed (docs/product.md, States). */
  relations: Relation[] | undefined;
  graph: ReturnType<typeof useEntityGraph>;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const [selected, setSelected] = useState<SelectedEntity | null>(null);
  // The tab is in the address (?tab=history), so a reload or a shared link opens it.
  const [searchParams, setSearchParams] = useSearchParams();
  const tab = entityTabOf(searchParams);

  function showTab(next: EntityTab) {
    const search = new URLSearchParams(searchParams);
    if (next === 'overview') search.delete('tab');
    else search.set('tab', next);
    setSearchParams(search, { replace: true });
  }

  return (
    <div className="grid gap-6">
      <title>{`${entity.name} · Engram`}</title>
      <EntityBackLink />
      <EntityHeader entity={entity} refreshing={refreshing} onRefresh={onRefresh} />
      <EntityTabs tab={tab} onChange={showTab} />
      {tab === 'history' ? (
        <div role="tabpanel" id="entity-tab-history" aria-labelledby="entity-tab-history-tab">
          <EntityHistory entityId={entity.id} />
        </div>
      ) : (
        <EntityOverview
          entity={entity}
          relations={relations}
          graph={graph}
          selected={selected}
          onSelect={setSelected}
        />
      )}
    </div>
  );
}
