import { entity, type Entity } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';
import { typePagesOf } from './type-pages';

// Entity reads that several screens share (Entity Management, the entity
// page, Search): one fetcher and one query key each, so the screens share
// what was read and a live update refreshes all of them.

/** Under the live prefix ['entity', id]: events naming the entity refresh it. */
export const entityDetailKey = (space: string, id: string) =>
  [...liveQueryKeys.entity(id), space, 'detail'] as const;

/** The entity may come bare or wrapped in an `entity` field (docs/product.md, Shapes). */
const entityAnswer = z
  .union([entity, z.object({ entity })])
  .transform((answer) => ('entity' in answer ? answer.entity : answer));

/** GET /api/entities/{id} → the entity with its observations (404 when not the account's). */
export function getEntity(space: string, id: string): Promise<Entity> {
  return apiRequest(`/api/entities/${encodeURIComponent(id)}`, { schema: entityAnswer, space });
}

export function entityQueryOptions(space: string, id: string) {
  return queryOptions({
    queryKey: entityDetailKey(space, id),
    queryFn: () => getEntity(space, id),
  });
}

/** The entity, once there is an id to read. */
export function useEntity(id: string | undefined) {
  return useQuery({ ...entityQueryOptions(useSpaceSlug(), id ?? ''), enabled: id !== undefined });
}

/** Under the live prefix ['entities']: entity events refresh the type counts. */
export const entityTypesKey = [...liveQueryKeys.entities, 'types'] as const;

/** GET /api/entities/types?prefix=&cursor=, page by page, for the entity type pickers. */
export const entityTypePages = typePagesOf(entityTypesKey, '/api/entities/types');

/** The shown space's entity type pages (the `pages` of a type picker). */
export function useEntityTypePages() {
  return entityTypePages(useSpaceSlug());
}
