import { entityList, type Entity } from '@engram/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** How many entities a picker lists at once; typing narrows the search on the server. */
export const PICKER_RESULTS = 20;

export type PickedEntity = Pick<Entity, 'id' | 'name' | 'type'>;

/**
 * GET /api/entities?query=&limit=20: the entities a picker offers, ranked by
 * the server (exact name first). Any entity of the account can be found,
 * however many there are. Without a query: the newest.
 */
export async function searchEntities(space: string, query: string): Promise<PickedEntity[]> {
  const params = new URLSearchParams({ limit: String(PICKER_RESULTS) });
  if (query.trim()) params.set('query', query.trim());
  const { entities } = await apiRequest(`/api/entities?${params.toString()}`, {
    schema: entityList,
    space,
  });
  return entities.map(({ id, name, type }) => ({ id, name, type }));
}

export function useEntitySearch(query: string, enabled: boolean) {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: [...liveQueryKeys.entities, space, 'picker', query.trim()],
    queryFn: () => searchEntities(space, query),
    enabled,
    placeholderData: keepPreviousData,
  });
}
