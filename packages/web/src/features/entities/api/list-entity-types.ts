import { typeSummary, type TypeSummary } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

export const entityTypesKey = [...liveQueryKeys.entities, 'types'] as const;

/** GET /api/entities/types → each type with its count, most common first. */
export function listEntityTypes(): Promise<TypeSummary[]> {
  return apiRequest('/api/entities/types', { schema: z.array(typeSummary) });
}

export function useEntityTypes() {
  return useQuery({ queryKey: entityTypesKey, queryFn: listEntityTypes });
}
