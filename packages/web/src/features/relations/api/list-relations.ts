import { relationList, type RelationList } from '@engram/shared';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** Relation lists are read 100 at a time (docs/product.md, Numbers). */
export const RELATION_PAGE_SIZE = 100;

export interface RelationFilter {
  /** Matches either end's name or the type, case-insensitively ('' for all). */
  query: string;
  /** One relation type, matched exactly, or null for all. */
  type: string | null;
}

/** Under the live prefix ['relations']: relation events and renames refresh the table. */
export const relationPagesKey = (space: string, filter: RelationFilter) =>
  [...liveQueryKeys.relations, space, 'list', filter] as const;

/** GET /api/relations?query=&relationTypes=&limit=100&offset= → one page, newest first. */
export function listRelations(
  space: string,
  filter: RelationFilter,
  offset = 0,
  limit = RELATION_PAGE_SIZE,
): Promise<RelationList> {
  const params = new URLSearchParams({ limit: String(limit) });
  if (filter.query.trim()) params.set('query', filter.query.trim());
  if (filter.type) params.set('relationTypes', filter.type);
  if (offset > 0) params.set('offset', String(offset));
  return apiRequest(`/api/relations?${params.toString()}`, { schema: relationList, space });
}

/** The table's pages: the first 100, then 'Load more' fetches the next 100 from the server. */
export function useRelationPages(filter: RelationFilter) {
  const space = useSpaceSlug();
  return useInfiniteQuery({
    queryKey: relationPagesKey(space, filter),
    queryFn: ({ pageParam }) => listRelations(space, filter, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextOffset ?? undefined,
    placeholderData: keepPreviousData,
  });
}
