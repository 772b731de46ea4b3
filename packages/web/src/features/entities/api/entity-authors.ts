import { entityAuthors, type EntityAuthors } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** Under the live prefix ['entity', id]: a change to the entity refreshes who changed it last. */
export const entityAuthorsKey = (space: string, id: string) =>
  [...liveQueryKeys.entity(id), space, 'authors'] as const;

/**
 * GET /api/entities/{id}/authors → who created the entity and who last
 * changed it, with when (null where history no longer holds it; docs/history.md).
 */
export function getEntityAuthors(space: string, id: string): Promise<EntityAuthors> {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}/authors`, {
    schema: entityAuthors,
    space,
  });
}

export function useEntityAuthors(id: string) {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: entityAuthorsKey(space, id),
    queryFn: () => getEntityAuthors(space, id),
  });
}
