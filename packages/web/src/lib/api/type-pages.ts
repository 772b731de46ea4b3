import { typeList, type TypeList } from '@engram/shared';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * GET {path}?prefix=&cursor= → one page of the account's entity or relation
 * types with their counts, most common first; `prefix` keeps those starting
 * with it (any case), `cursor` is the previous page's `nextCursor`.
 */
export function listTypes(
  space: string,
  path: string,
  prefix: string,
  cursor: string | null,
): Promise<TypeList> {
  const params = new URLSearchParams();
  if (prefix) params.set('prefix', prefix);
  if (cursor) params.set('cursor', cursor);
  const query = params.size ? `?${params.toString()}` : '';
  return apiRequest(`${path}${query}`, { schema: typeList, space });
}

/**
 * The pages of one space's types starting with a prefix, for the type
 * pickers, under `key` (a live prefix, so changes elsewhere refresh the
 * counts). Every screen asking for the same types uses the same key and so
 * shares the pages read.
 */
export const typePagesOf =
  (key: readonly string[], path: string) => (space: string) => (prefix: string) =>
    infiniteQueryOptions({
      queryKey: [...key, space, prefix],
      queryFn: ({ pageParam }) => listTypes(space, path, prefix, pageParam),
      initialPageParam: null as string | null,
      getNextPageParam: (page) => page.nextCursor,
    });
