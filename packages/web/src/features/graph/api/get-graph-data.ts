import { graphData, type GraphData } from '@engram/shared';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';
import type { GraphParams } from '../graph-model';

/** Under ['graph']: every graph event refreshes the view while it is shown. */
export const graphDataKey = (space: string, params: GraphParams) =>
  [...liveQueryKeys.graph, space, 'data', params] as const;

/** GET /api/relations/graph/data?limit=&depth= → the best-connected part of the graph. */
export async function getGraphData(
  space: string,
  { limit, depth }: GraphParams,
): Promise<GraphData> {
  const query = new URLSearchParams({ limit: String(limit), depth: String(depth) });
  return apiRequest(`/api/relations/graph/data?${query}`, { schema: graphData, space });
}

export function graphDataQueryOptions(space: string, params: GraphParams) {
  return queryOptions({
    queryKey: graphDataKey(space, params),
    queryFn: () => getGraphData(space, params),
    // Changing limit or depth keeps the current drawing until the new one arrives.
    placeholderData: keepPreviousData,
  });
}

export function useGraphData(params: GraphParams) {
  return useQuery(graphDataQueryOptions(useSpaceSlug(), params));
}
