import { liveQueryKeys } from '@/lib/realtime';
import { typePagesOf } from '@/lib/api/type-pages';
import { useSpaceSlug } from '@/lib/space';

/** Under the live prefix ['relations']: relation events refresh the type counts. */
export const relationTypesKey = [...liveQueryKeys.relations, 'types'] as const;

/** GET /api/relations/types?prefix=&cursor=, page by page, for the relation type pickers. */
export const relationTypePages = typePagesOf(relationTypesKey, '/api/relations/types');

/** The shown space's relation type pages (the `pages` of a type picker). */
export function useRelationTypePages() {
  return relationTypePages(useSpaceSlug());
}
