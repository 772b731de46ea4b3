import { deleteResult, type DeleteResult } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/**
 * DELETE /api/entities/{id}: the entity goes with its observations and
 * relations; `callSeq` names the call, which a revert undoes (docs/history.md).
 */
export function deleteEntity(space: string, id: string): Promise<DeleteResult> {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: deleteResult,
    space,
  });
}

export function useDeleteEntity() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (id: string) => deleteEntity(space, id),
    onSuccess: (_result, id) => {
      queryClient.removeQueries({ queryKey: liveQueryKeys.entity(id) });
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
      ]);
    },
  });
}
