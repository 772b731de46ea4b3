import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** DELETE /api/entities/{id}: the entity goes with its observations and relations. */
export async function deleteEntity(id: string): Promise<void> {
  await apiRequest(`/api/entities/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useDeleteEntity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteEntity,
    onSuccess: (_result, id) => {
      queryClient.removeQueries({ queryKey: liveQueryKeys.entity(id) });
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
      ]);
    },
  });
}
