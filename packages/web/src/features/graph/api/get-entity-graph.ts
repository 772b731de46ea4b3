import { graphData, type GraphData } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { ENTITY_GRAPH_DEPTH, ENTITY_GRAPH_LIMIT } from '../graph-model';

/**
 * Under ['graph'] rather than ['entity', id]: a relation between two of the
 * entity's neighbours changes this picture without naming the entity, and
 * every event refreshes ['graph'].
 */
export const entityGraphKey = (id: string) => [...liveQueryKeys.graph, 'around', id] as const;

/** GET /api/relations/graph/data?rootEntityId=&depth=1&limit=50 → the entity's neighbourhood. */
export async function getEntityGraph(id: string): Promise<GraphData> {
  const query = new URLSearchParams({
    rootEntityId: id,
    depth: String(ENTITY_GRAPH_DEPTH),
    limit: String(ENTITY_GRAPH_LIMIT),
  });
  return apiRequest(`/api/relations/graph/data?${query}`, { schema: graphData });
}

export function entityGraphQueryOptions(id: string) {
  return queryOptions({ queryKey: entityGraphKey(id), queryFn: () => getEntityGraph(id) });
}

export function useEntityGraph(id: string) {
  return useQuery(entityGraphQueryOptions(id));
}
