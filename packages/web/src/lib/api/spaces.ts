import {
  space as spaceSchema,
  spaceList,
  type CreateSpaceInput,
  type Space,
  type SpaceList,
  type UpdateSpaceInput,
} from '@engram/shared';
import {
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';
import { useDebouncedValue } from '@/lib/use-debounced-value';

// The account's memory spaces, which the shell's switcher, Settings → Spaces
// and the API key form all read: one fetcher and one key each.

/** Spaces are read this many at a time: an account may hold thousands, so lists page and search. */
export const SPACE_PAGE_SIZE = 50;

export const spacesKey = ['spaces'] as const;
const spacePagesKey = (query: string) => [...spacesKey, 'list', query] as const;
const spaceKey = (idOrSlug: string) => [...spacesKey, 'one', idOrSlug] as const;

/** GET /api/spaces?limit=&cursor=&query= → a page of spaces by slug; `query` keeps slugs or names starting with it. */
export function listSpaces(query: string, cursor: string | null): Promise<SpaceList> {
  const params = new URLSearchParams({ limit: String(SPACE_PAGE_SIZE) });
  if (query) params.set('query', query);
  if (cursor) params.set('cursor', cursor);
  return apiRequest(`/api/spaces?${params.toString()}`, { schema: spaceList });
}

/** The pages of the spaces whose slug or name starts with `query` ('' for all). */
export function spacePagesOptions(query: string) {
  const trimmed = query.trim();
  return infiniteQueryOptions({
    queryKey: spacePagesKey(trimmed),
    queryFn: ({ pageParam }) => listSpaces(trimmed, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** GET /api/spaces/{idOrSlug} → one space (404 "Space not found"). */
export function getSpace(idOrSlug: string): Promise<Space> {
  return apiRequest(`/api/spaces/${encodeURIComponent(idOrSlug)}`, { schema: spaceSchema });
}

/** The space with this slug (the shell's current one), kept a minute: names change rarely. */
export function useSpaceDetail(slug: string) {
  return useQuery(
    queryOptions({ queryKey: spaceKey(slug), queryFn: () => getSpace(slug), staleTime: 60_000 }),
  );
}

/** POST /api/spaces {name} → 201 with the space (slug from the name); 402 past the plan's spaces. */
export function createSpace(input: CreateSpaceInput): Promise<Space> {
  return apiRequest('/api/spaces', { method: 'POST', body: input, schema: spaceSchema });
}

/** PATCH /api/spaces/{idOrSlug} {name} → the renamed space (its slug never changes). */
export function renameSpace(idOrSlug: string, input: UpdateSpaceInput): Promise<Space> {
  return apiRequest(`/api/spaces/${encodeURIComponent(idOrSlug)}`, {
    method: 'PATCH',
    body: input,
    schema: spaceSchema,
  });
}

/** DELETE /api/spaces/{idOrSlug} → the space and everything in it are gone (never `default`: 400). */
export function deleteSpace(idOrSlug: string): Promise<unknown> {
  return apiRequest(`/api/spaces/${encodeURIComponent(idOrSlug)}`, {
    method: 'DELETE',
    schema: z.object({ success: z.literal(true) }),
  });
}

function useRefreshSpaces() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: spacesKey });
}

export function useCreateSpace() {
  const refresh = useRefreshSpaces();
  return useMutation({ mutationFn: createSpace, onSuccess: refresh });
}

export function useRenameSpace() {
  const refresh = useRefreshSpaces();
  return useMutation({
    mutationFn: ({ slug, name }: { slug: string; name: string }) => renameSpace(slug, { name }),
    onSuccess: refresh,
  });
}

export function useDeleteSpace() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (slug: string) => deleteSpace(slug),
    onSuccess: (_result, slug) => {
      // Its graph is gone: a space made later with the same slug must not show it from the cache.
      queryClient.removeQueries({ predicate: (query) => query.queryKey.includes(slug) });
      return queryClient.invalidateQueries({ queryKey: spacesKey });
    },
  });
}

/** Typing pauses this long before the server is asked for spaces. */
export const SPACE_SEARCH_DEBOUNCE_MS = 250;

/**
 * The spaces whose slug or name starts with `search`, read from the server as
 * the person types (debounced) and a page at a time ('Load more'): never the
 * whole list, which may hold thousands. `stale` while the shown list still
 * answers an earlier text.
 */
export function useSpaceSearch(search: string, enabled = true) {
  const settled = useDebouncedValue(search.trim(), SPACE_SEARCH_DEBOUNCE_MS);
  const pages = useInfiniteQuery({
    ...spacePagesOptions(settled),
    enabled,
    placeholderData: keepPreviousData,
  });
  const spaces = pages.data?.pages.flatMap((page) => page.spaces) ?? [];
  const stale = settled !== search.trim() || pages.isPlaceholderData;
  return { pages, spaces, settled, stale };
}
