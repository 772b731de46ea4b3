import { relationList, type Relation } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** Relation lists load at most 100 (docs/product.md, Numbers). */
export const ENTITY_RELATIONS_LIMIT = 100;

export const entityRelationsKey = (space: string, id: string) =>
  [...liveQueryKeys.entity(id), space, 'relations'] as const;

/** GET /api/relations?entityId= → the relations touching the entity, newest first. */
export async function listEntityRelations(space: string, id: string): Promise<Relation[]> {
  const query = new URLSearchParams({ entityId: id, limit: String(ENTITY_RELATIONS_LIMIT) });
  const { relations } = await apiRequest(`/api/relations?${query}`, {
    schema: relationList,
    space,
  });
  return relations;
}

export function entityRelationsQueryOptions(space: string, id: string) {
  return queryOptions({
    queryKey: entityRelationsKey(space, id),
    queryFn: () => listEntityRelations(space, id),
  });
}

export function useEntityRelations(id: string) {
  return useQuery(entityRelationsQueryOptions(useSpaceSlug(), id));
}
