import { entity, observation } from '@engram/shared';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';

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
