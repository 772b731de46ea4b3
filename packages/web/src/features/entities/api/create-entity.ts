import { entity, type Entity, type EntityInput } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** POST /api/entities {name, type, metadata, observations[]} → 201 with the entity. */
export function createEntity(space: string, input: EntityInput): Promise<Entity> {
  return apiRequest('/api/entities', { method: 'POST', body: input, schema: entity, space });
}

export function useCreateEntity() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (input: EntityInput) => createEntity(space, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
  });
}
