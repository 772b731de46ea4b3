import type { DuplicateList } from '@engram/shared';
import { useInfiniteQuery, type InfiniteData } from '@tanstack/react-query';
import { duplicatesPrefix, listDuplicates } from '@/lib/api/duplicates';
import { useSpaceSlug } from '@/lib/space';

/**
 * Pairs per page of the Duplicates screen: each pair reads its two entities
 * in full (aliases, observations, metadata), so a page is kept short.
 */
export const DUPLICATES_SCREEN_PAGE = 10;

/** How soon to read again while the finder is still comparing recent changes. */
const CATCHING_UP_MS = 3_000;
/**
 * Reads of the list after which it stops reading on a timer: reads are
 * metered operations, and an open tab left idle must not spend them
 * (app/query-client.ts). By then the finder has caught up, or is behind for
 * a while (a large import), and Refresh reads again.
 */
export const CATCHING_UP_READS = 20;

/**
 * While an answer says it is not up to date (`upToDate: false`: the
 * background finder has changes left to compare), read again in a few
 * seconds, so pairs appear as they are found, CATCHING_UP_READS times at
 * most; otherwise never (entity events refresh the list).
 */
export function whileCatchingUp(query: {
  state: { data: InfiniteData<DuplicateList> | undefined; dataUpdateCount: number };
}): number | false {
  const { data, dataUpdateCount } = query.state;
  if (!data || data.pages.every((page) => page.upToDate)) return false;
  return dataUpdateCount < CATCHING_UP_READS ? CATCHING_UP_MS : false;
}

/** The screen's pages, under the live prefix ['entities'] (lib/api/duplicates.ts). */
export const duplicatePagesKey = (space: string, entityId: string | null) =>
  [...duplicatesPrefix(space), 'pages', entityId] as const;

/**
 * The Duplicates screen's pages, best pairs first, then 'Load more' reads the
 * next by its cursor; only the pairs of `entityId` when given. While the
 * background finder is still comparing recent changes, read again every few
 * seconds.
 */
export function useDuplicatePages(entityId: string | null) {
  const space = useSpaceSlug();
  return useInfiniteQuery({
    queryKey: duplicatePagesKey(space, entityId),
    queryFn: ({ pageParam }) =>
      listDuplicates(space, { limit: DUPLICATES_SCREEN_PAGE, cursor: pageParam, entityId }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: whileCatchingUp,
  });
}
