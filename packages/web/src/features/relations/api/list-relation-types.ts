import { typeList, type TypeList } from '@engram/shared';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

export const relationTypesKey = [...liveQueryKeys.relations, 'types'] as const;

/**
 * GET /api/relations/types?prefix=&cursor= → one page of the account's relation types
 * with their counts, most common first; `prefix` keeps those starting with
 * it (any case), `cursor` is the previous page's `nextCursor`.
 */
export function listRelationTypes(prefix: string, cursor: string | null): Promise<TypeList> {
  const params = new URLSearchParams();
  if (prefix) params.set('prefix', prefix);
  if (cursor) params.set('cursor', cursor);
  const query = params.size ? `?${params.toString()}` : '';
  return apiRequest(`/api/relations/types${query}`, { schema: typeList });
}

/** The pages of the types starting with `prefix`, for the type pickers. */
export const relationTypePages = (prefix: string) =>
  infiniteQueryOptions({
    queryKey: [...relationTypesKey, prefix],
    queryFn: ({ pageParam }) => listRelationTypes(prefix, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
