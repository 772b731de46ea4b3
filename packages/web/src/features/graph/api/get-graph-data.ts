import { graphData, type GraphData } from '@engram/shared';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';
import type { GraphParams } from '../graph-params';

/** Under ['graph']: every graph event refreshes the view while it is shown. */
export const graphDataKey = (space: string, params: GraphParams) =>
  [...liveQueryKeys.graph, space, 'data', params] as const;

/**
 * The graph as it was at `asOf`: outside the live ['graph'] prefix, so events
 * (which change the present) never refetch a view of the past.
 */
export const pastGraphDataKey = (space: string, params: GraphParams, asOf: string) =>
  ['graph-as-of', space, params, asOf] as const;

/** GET /api/relations/graph/data?limit=&depth=[&asOf=] → the best-connected part of the graph, now or then. */
export async function getGraphData(
  space: string,
  { limit, depth }: GraphParams,
  asOf: string | null = null,
): Promise<GraphData> {
  const query = new URLSearchParams({ limit: String(limit), depth: String(depth) });
  if (asOf) query.set('asOf', asOf);
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

/** The graph now, or as of `asOf` (an ISO time) when one is given. */
export function useGraphData(params: GraphParams, asOf: string | null = null) {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: asOf === null ? graphDataKey(space, params) : pastGraphDataKey(space, params, asOf),
    queryFn: () => getGraphData(space, params, asOf),
    // Changing limit, depth or the time keeps the current drawing until the new one arrives.
    placeholderData: keepPreviousData,
    // The past does not change; a 400 (before the history kept) would not pass on a retry.
    ...(asOf === null ? {} : { staleTime: Infinity, retry: false }),
  });
}
