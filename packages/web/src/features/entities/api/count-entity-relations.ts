import { relationList } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

export const entityRelationCountKey = (space: string, id: string) =>
  [...liveQueryKeys.entity(id), space, 'relation-count'] as const;

/** GET /api/relations?entityId=&limit=1 → how many relations touch the entity (`total`). */
export async function countEntityRelations(space: string, id: string): Promise<number> {
  const query = new URLSearchParams({ entityId: id, limit: '1' });
  const { total } = await apiRequest(`/api/relations?${query}`, { schema: relationList, space });
  return total;
}

/** The count, read only while `id` is set (a delete dialog is open). */
export function useEntityRelationCount(id: string | null) {
  const space = useSpaceSlug();
  return useQuery({
    queryKey: entityRelationCountKey(space, id ?? ''),
    queryFn: () => countEntityRelations(space, id!),
    enabled: id !== null,
  });
}
