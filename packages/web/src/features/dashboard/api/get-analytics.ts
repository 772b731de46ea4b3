import { analyticsSummary, type AnalyticsSummary } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** Under the live `['analytics']` prefix: every graph event refreshes the dashboard. */
export const analyticsSummaryKey = [...liveQueryKeys.analytics, 'summary'] as const;

/**
 * GET /api/analytics → the dashboard's summary (spec §3): graph totals,
 * recent activity and entities, today's and this month's operations, and the
 * plan with its limits (the web app keeps no table of its own).
 */
export function getAnalytics(): Promise<AnalyticsSummary> {
  return apiRequest('/api/analytics', { schema: analyticsSummary });
}

export function analyticsQueryOptions() {
  return queryOptions({
    queryKey: analyticsSummaryKey,
    queryFn: getAnalytics,
    // API calls made elsewhere (agents, other tabs) send no graph event: look again now and then.
    refetchInterval: 60_000,
  });
}

export function useAnalytics() {
  return useQuery(analyticsQueryOptions());
}
