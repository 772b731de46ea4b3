import { relation, type Relation, type RelationInput } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** POST /api/relations {fromEntityId, toEntityId, type} → 201 with the relation. */
export function createRelation(input: RelationInput): Promise<Relation> {
  return apiRequest('/api/relations', { method: 'POST', body: input, schema: relation });
}

export function useCreateRelation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createRelation,
    onSuccess: (created) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(created.fromEntityId) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(created.toEntityId) }),
      ]),
  });
}
