import { entity, type Entity } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

/** Under the live prefix ['entity', id]: events naming the entity refresh it. */
export const entityDetailKey = (id: string) => [...liveQueryKeys.entity(id), 'detail'] as const;

/** GET /api/entities/{id} → the entity with its observations (404 when not the account's). */
export function getEntity(id: string): Promise<Entity> {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}`, { schema: entity });
}

export function entityQueryOptions(id: string) {
  return queryOptions({ queryKey: entityDetailKey(id), queryFn: () => getEntity(id) });
}

export function useEntity(id: string | undefined) {
  return useQuery({ ...entityQueryOptions(id ?? ''), enabled: id !== undefined });
}
