import { liveQueryKeys } from '@/lib/realtime';
import { typePagesOf } from '@/lib/api/type-pages';

/** Under the live prefix ['relations']: relation events refresh the type counts. */
export const relationTypesKey = [...liveQueryKeys.relations, 'types'] as const;

/** GET /api/relations/types?prefix=&cursor=, page by page, for the relation type pickers. */
export const relationTypePages = typePagesOf(relationTypesKey, '/api/relations/types');
