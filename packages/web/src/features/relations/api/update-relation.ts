import { relation, type Relation } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** PUT /api/relations/{id} {type}: only the type changes; the ends cannot. */
export function updateRelation(space: string, id: string, type: string): Promise<Relation> {
  return apiRequest(`/api/relations/${encodeURIComponent(id)}`, {
    method: 'PUT',
    body: { type },
    schema: relation,
    space,
  });
}

export function useUpdateRelation() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: ({ id, type }: { id: string; type: string }) => updateRelation(space, id, type),
    onSuccess: (updated) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(updated.fromEntityId) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(updated.toEntityId) }),
      ]),
  });
}
