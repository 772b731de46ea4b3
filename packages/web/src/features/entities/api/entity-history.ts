import { historyPage, type HistoryPage } from '@engram/shared';
import { useInfiniteQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** Changes per page of the History tab: enough to fill the screen, quick to read. */
export const HISTORY_PAGE_SIZE = 30;

/** Under the live prefix ['entity', id]: a new change to the entity shows at the top. */
export const entityHistoryKey = (space: string, id: string) =>
  [...liveQueryKeys.entity(id), space, 'history'] as const;

/**
 * GET /api/entities/{id}/history?limit=&cursor= → one page of the changes to
 * the entity, its observations and the relations touching it, newest first.
 */
export function getEntityHistory(
  space: string,
  id: string,
  cursor: string | null,
): Promise<HistoryPage> {
  const query = new URLSearchParams({ limit: String(HISTORY_PAGE_SIZE) });
  if (cursor) query.set('cursor', cursor);
  return apiRequest(`/api/entities/${encodeURIComponent(id)}/history?${query}`, {
    schema: historyPage,
    space,
  });
}

/** The tab's pages: the newest first, then 'Load more' reads the next (older) page. */
export function useEntityHistory(id: string) {
  const space = useSpaceSlug();
  return useInfiniteQuery({
    queryKey: entityHistoryKey(space, id),
    queryFn: ({ pageParam }) => getEntityHistory(space, id, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
