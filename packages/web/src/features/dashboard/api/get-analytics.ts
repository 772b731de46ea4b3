import { analyticsSummary, type AnalyticsSummary } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { ALL_SPACES, useSpace } from '@/lib/space';

/** Under the live `['analytics']` prefix: every graph event refreshes the dashboard. */
export const analyticsSummaryKey = (space: string | null) =>
  [...liveQueryKeys.analytics, 'summary', space ?? ALL_SPACES] as const;

/**
 * GET /api/analytics → the dashboard's summary (docs/product.md, Shapes): graph totals,
 * recent activity and entities, today's and this month's operations, and the
 * plan with its limits (the web app keeps no table of its own). With a space,
 * the graph's numbers are that space's; with none (All spaces), the account's.
 */
export function getAnalytics(space: string | null): Promise<AnalyticsSummary> {
  return apiRequest('/api/analytics', { schema: analyticsSummary, space });
}

/**
 * Fresh whenever the dashboard is shown: the summary is not a metered
 * operation, so reading it costs nothing, while the person's own reads
 * elsewhere in the app (which send no graph event) move its usage figures.
 * Every graph change refreshes it through the realtime feed; coming back to
 * the tab reads it again (an agent's reads send no event either). No timer:
 * an idle tab sends nothing.
 */
export function analyticsQueryOptions(space: string | null) {
  return queryOptions({
    queryKey: analyticsSummaryKey(space),
    queryFn: () => getAnalytics(space),
    staleTime: 0,
    refetchOnWindowFocus: true,
  });
}

/** The shown space's numbers, or the whole account's when "All spaces" is chosen. */
export function useAnalytics() {
  const { slug, allSpaces } = useSpace();
  return useQuery(analyticsQueryOptions(allSpaces ? null : slug));
}
