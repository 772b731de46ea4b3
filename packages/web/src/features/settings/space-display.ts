import type { Space } from '@engram/shared';
import { pluralize } from '@/lib/format';

/** '12 entities · 3 relations · 40 observations': what a space holds, in one line. */
export function spaceCountsLabel({ counts }: Pick<Space, 'counts'>): string {
  return [
    pluralize(counts.entities, 'entity', 'entities'),
    pluralize(counts.relations, 'relation'),
    pluralize(counts.observations, 'observation'),
  ].join(' · ');
}
