import { graphData, type GraphData } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';
import { ENTITY_GRAPH_DEPTH, ENTITY_GRAPH_LIMIT } from '../entity-graph';

/**
 * Under ['graph'] rather than ['entity', id]: a relation between two of the
 * entity's neighbours changes this picture without naming the entity, and
 * every event refreshes ['graph'].
 */
export const entityGraphKey = (space: string, id: string) =>
  [...liveQueryKeys.graph, space, 'around', id] as const;

/** GET /api/relations/graph/data?rootEntityId=&depth=1&limit=50 → the entity's neighbourhood. */
export async function getEntityGraph(space: string, id: string): Promise<GraphData> {
  const query = new URLSearchParams({
    rootEntityId: id,
    depth: String(ENTITY_GRAPH_DEPTH),
    limit: String(ENTITY_GRAPH_LIMIT),
  });
  return apiRequest(`/api/relations/graph/data?${query}`, { schema: graphData, space });
}

export function entityGraphQueryOptions(space: string, id: string) {
  return queryOptions({
    queryKey: entityGraphKey(space, id),
    queryFn: () => getEntityGraph(space, id),
  });
}

export function useEntityGraph(id: string) {
  return useQuery(entityGraphQueryOptions(useSpaceSlug(), id));
}
