import { entityList, type EntityList } from '@engram/shared';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** Entity lists are read 100 at a time (docs/product.md, Numbers). */
export const ENTITY_PAGE_SIZE = 100;

export interface EntityFilter {
  /** Text search; '' lists every entity, newest first. */
  query: string;
  /** One entity type, or null for all types. */
  type: string | null;
}

/** Under the live prefix ['entities']: any entity event refreshes the grid. */
export const entityPagesKey = (space: string, filter: EntityFilter) =>
  [...liveQueryKeys.entities, space, 'list', filter] as const;

/**
 * GET /api/entities?query=&types=&limit=100&cursor= → one page of entities
 * with their observations, the total, and the cursor of the next page: it
 * starts right after this page's last entity, so a late page costs the server
 * what the first does, and entities created meanwhile neither repeat nor hide
 * one.
 */
export function listEntities(
  space: string,
  filter: EntityFilter,
  cursor: string | null = null,
  limit = ENTITY_PAGE_SIZE,
): Promise<EntityList> {
  const params = new URLSearchParams({ limit: String(limit) });
  if (filter.query.trim()) params.set('query', filter.query.trim());
  if (filter.type) params.set('types', filter.type);
  if (cursor) params.set('cursor', cursor);
  return apiRequest(`/api/entities?${params.toString()}`, { schema: entityList, space });
}

/** The grid's pages: the first 100, then 'Load more' fetches the next 100 from the server. */
export function useEntityPages(filter: EntityFilter) {
  const space = useSpaceSlug();
  return useInfiniteQuery({
    queryKey: entityPagesKey(space, filter),
    queryFn: ({ pageParam }) => listEntities(space, filter, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // A new search keeps the old cards on screen until its answer arrives.
    placeholderData: keepPreviousData,
  });
}
