import { analyticsSummary, type AnalyticsSummary } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** Under the live `['analytics']` prefix: every graph event refreshes the dashboard. */
export const analyticsSummaryKey = [...liveQueryKeys.analytics, 'summary'] as const;

/**
 * GET /api/analytics → the dashboard's summary (docs/product.md, Shapes): graph totals,
 * recent activity and entities, today's and this month's operations, and the
 * plan with its limits (the web app keeps no table of its own).
 */
export function getAnalytics(): Promise<AnalyticsSummary> {
  return apiRequest('/api/analytics', { schema: analyticsSummary });
}

/**
 * Fresh whenever the dashboard is shown: the summary is not a metered
 * operation, so reading it costs nothing, while the person's own reads
 * elsewhere in the app (which send no graph event) move its usage figures.
 * Every graph change refreshes it through the realtime feed; coming back to
 * the tab reads it again (an agent's reads send no event either). No timer:
 * an idle tab sends nothing.
 */
export function analyticsQueryOptions() {
  return queryOptions({
    queryKey: analyticsSummaryKey,
    queryFn: getAnalytics,
    staleTime: 0,
    refetchOnWindowFocus: true,
  });
}

export function useAnalytics() {
  return useQuery(analyticsQueryOptions());
}
