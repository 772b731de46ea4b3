import { deleteResult, type DeleteResult, type Relation } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** DELETE /api/relations/{id}; `callSeq` names the call, which a revert undoes (docs/history.md). */
export function deleteRelation(space: string, id: string): Promise<DeleteResult> {
  return apiRequest(`/api/relations/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: deleteResult,
    space,
  });
}

export function useDeleteRelation() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (relation: Relation) => deleteRelation(space, relation.id),
    onSuccess: (_result, deleted) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(deleted.fromEntityId) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(deleted.toEntityId) }),
      ]),
  });
}
