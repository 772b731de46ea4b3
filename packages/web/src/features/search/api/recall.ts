import { recallAnswer, RECALL_LIMIT_DEFAULT, type RecallAnswer } from '@engram/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

export interface RecallAsk {
  /** The question, trimmed; '' asks nothing. */
  query: string;
  /** One entity type to keep, or null for all types. */
  type: string | null;
  limit: number;
  /** The first and last day (ISO, inclusive) to keep, or null for an open end. */
  since: string | null;
  until: string | null;
}

/** What was asked, kept with its answer: the marks are drawn from the question answered. */
export interface RecalledAnswer extends RecallAnswer {
  asked: RecallAsk;
}

/**
 * Under the live prefix ['entities']: a new, changed or deleted entity or
 * observation asks the shown question again.
 */
export const recallKey = (space: string, ask: RecallAsk) =>
  [...liveQueryKeys.entities, space, 'recall', ask] as const;

/**
 * GET /api/recall?q=&limit=&types=&since=&until= → the observations that answer the
 * question, best first, each with its entity; few or none when nothing does.
 */
export async function recall(space: string, ask: RecallAsk): Promise<RecalledAnswer> {
  const params = new URLSearchParams({ q: ask.query });
  if (ask.limit !== RECALL_LIMIT_DEFAULT) params.set('limit', String(ask.limit));
  if (ask.type) params.set('types', ask.type);
  if (ask.since) params.set('since', ask.since);
  if (ask.until) params.set('until', ask.until);
  const answer = await apiRequest(`/api/recall?${params.toString()}`, {
    schema: recallAnswer,
    space,
  });
  return { ...answer, asked: ask };
}

/**
 * The answer to the question asked. Each question has its own cache entry, so
 * a slow answer to an earlier question never replaces a newer one; the last
 * answer stays on screen (dimmed) until the next arrives.
 */
export function useRecall(ask: RecallAsk) {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: recallKey(space, ask),
    queryFn: () => recall(space, ask),
    enabled: ask.query !== '',
    placeholderData: keepPreviousData,
  });
}
