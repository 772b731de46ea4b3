import { entity, observation } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

const added = z.object({ entity, added: z.array(observation) });

/** POST /api/entities/{id}/observations {observations} → the entity and what was added. */
export function addObservations(space: string, id: string, observations: string[]) {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}/observations`, {
    method: 'POST',
    body: { observations },
    schema: added,
    space,
  });
}

/** Adds observations to one entity (the entity page's Add observation). */
export function useAddObservations(id: string) {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (observations: string[]) => addObservations(space, id, observations),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entity(id) }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.entities }),
      ]),
  });
}
