import { relation, type Relation, type RelationInput } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** POST /api/relations {fromEntityId, toEntityId, type} → 201 with the relation. */
export function createRelation(space: string, input: RelationInput): Promise<Relation> {
  return apiRequest('/api/relations', { method: 'POST', body: input, schema: relation, space });
}

export function useCreateRelation() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (input: RelationInput) => createRelation(space, input),
    onSuccess: (created) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.relations }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(created.fromEntityId) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(created.toEntityId) }),
      ]),
  });
}
