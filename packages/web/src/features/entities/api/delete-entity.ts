import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** DELETE /api/entities/{id}: the entity goes with its observations and relations. */
export async function deleteEntity(space: string, id: string): Promise<void> {
  await apiRequest(`/api/entities/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
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
