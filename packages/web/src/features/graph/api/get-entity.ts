import { entity, type Entity } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** The entity may come bare or wrapped in an `entity` field (spec §7). */
const entityAnswer = z
  .union([entity, z.object({ entity })])
  .transform((answer) => ('entity' in answer ? answer.entity : answer));

export const entityDetailKey = (id: string) => [...liveQueryKeys.entity(id), 'detail'] as const;

/** GET /api/entities/{id} → the entity with its observations. */
export async function getEntity(id: string): Promise<Entity> {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}`, { schema: entityAnswer });
}

export function entityQueryOptions(id: string) {
  return queryOptions({ queryKey: entityDetailKey(id), queryFn: () => getEntity(id) });
}

export function useEntity(id: string) {
  return useQuery(entityQueryOptions(id));
}
