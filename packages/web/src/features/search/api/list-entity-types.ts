import { typeList, type TypeList } from '@engram/shared';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/**
 * GET /api/entities/types?prefix=&cursor= → one page of the account's entity
 * types with their counts, most common first. The key is the one Entity
 * Management uses for the same call, so both screens share the pages read.
 */
function listEntityTypes(prefix: string, cursor: string | null): Promise<TypeList> {
  const params = new URLSearchParams();
  if (prefix) params.set('prefix', prefix);
  if (cursor) params.set('cursor', cursor);
  const query = params.size ? `?${params.toString()}` : '';
  return apiRequest(`/api/entities/types${query}`, { schema: typeList });
}

/** The pages of the types starting with `prefix`, for the type filter. */
export const entityTypePages = (prefix: string) =>
  infiniteQueryOptions({
    queryKey: [...liveQueryKeys.entities, 'types', prefix],
    queryFn: ({ pageParam }) => listEntityTypes(prefix, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
