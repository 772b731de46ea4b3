import { typeSummary, type TypeSummary } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';

export const relationTypesKey = [...liveQueryKeys.relations, 'types'] as const;

/** GET /api/relations/types → each relation type with its count, most common first. */
export function listRelationTypes(): Promise<TypeSummary[]> {
  return apiRequest('/api/relations/types', { schema: z.array(typeSummary) });
}

export function useRelationTypes() {
  return useQuery({ queryKey: relationTypesKey, queryFn: listRelationTypes });
}
