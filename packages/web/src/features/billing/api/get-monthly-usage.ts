import { monthlySummary, type MonthlySummary } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/**
 * GET /api/analytics/billing/monthly-summary → this month's operations:
 * total, per operation type, and per operation and resource (docs/product.md, Shapes). The
 * screen falls back to empty data when it fails (docs/product.md, Calls).
 */
export function getMonthlyUsage(): Promise<MonthlySummary> {
  return apiRequest('/api/analytics/billing/monthly-summary', { schema: monthlySummary });
}

export function monthlyUsageQueryOptions() {
  return queryOptions({ queryKey: billingKeys.monthlyUsage, queryFn: getMonthlyUsage });
}

export function useMonthlyUsage() {
  return useQuery(monthlyUsageQueryOptions());
}
