import { realTimeStats, type RealTimeStats } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/** GET /api/analytics/stats/real-time → today's operations; zeros when it fails (docs/product.md, Calls). */
export function getTodayUsage(): Promise<RealTimeStats> {
  return apiRequest('/api/analytics/stats/real-time', { schema: realTimeStats });
}

export function todayUsageQueryOptions() {
  return queryOptions({ queryKey: billingKeys.todayUsage, queryFn: getTodayUsage });
}

export function useTodayUsage() {
  return useQuery(todayUsageQueryOptions());
}
