import { okResponse, type Relation } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** DELETE /api/relations/{id}. */
export async function deleteRelation(id: string): Promise<void> {
  await apiRequest(`/api/relations/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useDeleteRelation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (relation: Relation) => deleteRelation(relation.id),
    onSuccess: (_result, deleted) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(deleted.fromEntityId) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(deleted.toEntityId) }),
      ]),
  });
}
