import { DUPLICATES_PAGE_MAX, duplicateList, type DuplicateList } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

// The candidate pairs of GET /api/duplicates (issue 59, docs/consolidation.md),
// read by three screens: the Duplicates screen (page by page), the Entities
// screen's "Review duplicates (N)" and the entity page's "Possible duplicates".

/**
 * Under the live prefix ['entities']: entity events (a creation, a rename, a
 * merge, a deletion) change which pairs there are. Each reader has a key of
 * its own below this one (a page list and a single read never share a key).
 */
export const duplicatesPrefix = (space: string) =>
  [...liveQueryKeys.entities, space, 'duplicates'] as const;

export interface DuplicatePageRequest {
  limit: number;
  cursor?: string | null;
  /** Only the pairs this entity is in. */
  entityId?: string | null;
}

/** GET /api/duplicates?limit=&cursor=&entityId= → one page of pairs, best first. */
export function listDuplicates(
  space: string,
  { limit, cursor, entityId }: DuplicatePageRequest,
): Promise<DuplicateList> {
  const params = new URLSearchParams({ limit: String(limit) });
  if (cursor) params.set('cursor', cursor);
  if (entityId) params.set('entityId', entityId);
  return apiRequest(`/api/duplicates?${params}`, { schema: duplicateList, space });
}

/** A pair's score as the screens show it: 0.97 → '97%'; never 100% short of a sure thing. */
export function duplicateScoreLabel(score: number): string {
  const percent = score >= 1 ? 100 : Math.min(99, Math.round(score * 100));
  return `${percent}%`;
}

/** How many pairs the space has, as far as one page of 100 tells. */
export interface DuplicateCount {
  count: number;
  /** More follow that page: '100+'. */
  more: boolean;
}

/** The Entities screen's "Review duplicates (N)": the first 100 pairs, counted. */
export function useDuplicateCount() {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: [...duplicatesPrefix(space), 'count'] as const,
    queryFn: () => listDuplicates(space, { limit: DUPLICATES_PAGE_MAX }),
    select: (list): DuplicateCount => ({
      count: list.candidates.length,
      more: list.nextCursor !== null,
    }),
  });
}

/** Pairs the entity page lists under "Possible duplicates". */
export const ENTITY_DUPLICATES_LIMIT = 10;

/** The entity's best pairs (the entity page's "Possible duplicates"). */
export function useEntityDuplicates(entityId: string) {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: [...duplicatesPrefix(space), 'entity', entityId] as const,
    queryFn: () => listDuplicates(space, { limit: ENTITY_DUPLICATES_LIMIT, entityId }),
  });
}
