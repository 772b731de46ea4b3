import { entity, type Entity, type EntityInput } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** POST /api/entities {name, type, metadata, observations[]} → 201 with the entity. */
export function createEntity(input: EntityInput): Promise<Entity> {
  return apiRequest('/api/entities', { method: 'POST', body: input, schema: entity });
}

export function useCreateEntity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createEntity,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
  });
}
