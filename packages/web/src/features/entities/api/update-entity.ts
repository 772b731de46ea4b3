import { entity, type Entity, type EntityUpdateInput } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/**
 * PUT /api/entities/{id}: name and type replaced; metadata and observations
 * only when given. A given observation list becomes the entity's list, and
 * every text sent again keeps its id and date on the server.
 */
export function updateEntity(space: string, id: string, input: EntityUpdateInput): Promise<Entity> {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}`, {
    method: 'PUT',
    body: input,
    schema: entity,
    space,
  });
}

export function useUpdateEntity() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: EntityUpdateInput }) =>
      updateEntity(space, id, input),
    onSuccess: (_updated, { id }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(id) }),
      ]),
  });
}
