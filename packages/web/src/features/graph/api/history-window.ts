import { planById } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';

/** The part of GET /api/billing/subscription read here: the plan whose limits are in force. */
const limitsPlan = z.object({ limitsPlan: z.object({ id: z.string() }) });

/** Days of history the Graph's as-of slider spans when the plan cannot be read (the free plan's). */
export const FALLBACK_HISTORY_DAYS = planById('free').features.changeLogRetentionDays;

/**
 * How many days of history the account keeps: the in-force plan's
 * changeLogRetentionDays (the operator may set another window; the server's
 * 400 then says where history starts).
 */
export async function getHistoryDays(): Promise<number> {
  const current = await apiRequest('/api/billing/subscription', { schema: limitsPlan });
  return planById(current.limitsPlan.id).features.changeLogRetentionDays;
}

export function historyDaysQueryOptions() {
  return queryOptions({
    // Own key: the billing screen's subscription query holds the whole answer, parsed its way.
    queryKey: ['history', 'retention-days'] as const,
    queryFn: getHistoryDays,
    staleTime: 10 * 60_000,
    retry: false,
  });
}

export function useHistoryDays(): number {
  const days = useQuery(historyDaysQueryOptions());
  return days.data ?? FALLBACK_HISTORY_DAYS;
}
