import { useQueryClient } from '@tanstack/react-query';
import { Alert } from '@/components/ui/alert';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { useEntity } from '@/lib/api/entities';
import { ApiError } from '@/lib/api-client';
import { useEntitySubscription } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';
import { entityAuthorsKey } from '../api/entity-authors';
import { entityHistoryKey } from '../api/entity-history';
import { useEntityGraph } from '../api/get-entity-graph';
import { useEntityRelations } from '../api/list-entity-relations';
import { EntityBackLink } from './entity-back-link';
import { LoadedEntity } from './loaded-entity';

/**
 * The entity page's reads (the entity, its relations, its neighbourhood),
 * followed live while shown, and its states before the entity is there:
 * loading, not found, failed (docs/product.md, States).
 */
export function EntityDetail({ entityId }: { entityId: string }) {
  useEntitySubscription(entityId);
  const entity = useEntity(entityId);
  const relations = useEntityRelations(entityId);
  const graph = useEntityGraph(entityId);
  const queryClient = useQueryClient();
  const space = useSpaceSlug();

  function refresh() {
    void entity.refetch();
    void relations.refetch();
    void graph.refetch();
    void queryClient.invalidateQueries({ queryKey: entityHistoryKey(space, entityId) });
    void queryClient.invalidateQueries({ queryKey: entityAuthorsKey(space, entityId) });
  }

  if (entity.isPending || entity.isError) {
    const notFound = entity.error instanceof ApiError && entity.error.status === 404;
    return (
      <div className="grid gap-6">
        <title>Entity Details · Engram</title>
        <EntityBackLink />
        <h1 className="text-2xl font-semibold tracking-tight">Entity Details</h1>
        {entity.isPending ? (
          <Card
            role="status"
            className="flex items-center justify-center gap-2 p-10 text-sm text-muted-foreground"
          >
            <Spinner />
            Loading entity data...
          </Card>
        ) : (
          <Alert variant="error">
            {notFound ? 'Entity not found' : 'Failed to load entity data'}
          </Alert>
        )}
      </div>
    );
  }

  return (
    <LoadedEntity
      entity={entity.data}
      relations={relations.isError ? [] : relations.data}
      graph={graph}
      refreshing={entity.isFetching || relations.isFetching || graph.isFetching}
      onRefresh={refresh}
    />
  );
}
