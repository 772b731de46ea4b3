import type { DuplicateCandidate, DuplicateEntity, MergeResult } from '@engram/shared';
import { pluralize } from '@/lib/format';

/*
 * The Duplicates screen's rules as plain functions (issue 59,
 * docs/consolidation.md): which side a pair shows first, and what a merge
 * moves, in words. Components only lay these out.
 */

/** How much an entity holds: what a merge into the other would have to move. */
const weight = (entity: DuplicateEntity) => entity.observationsCount + entity.relationsCount;

/**
 * The pair as the screen shows it: the entity holding more (observations and
 * relations) on the left, the likelier one to keep; the server's order when
 * they hold as much.
 */
export function sidesOf(candidate: DuplicateCandidate): [DuplicateEntity, DuplicateEntity] {
  const [first, second] = candidate.entities as [DuplicateEntity, DuplicateEntity];
  return weight(second) > weight(first) ? [second, first] : [first, second];
}

/** '“A. Lovelace”': a name quoted as the screen quotes names. */
export const quoted = (name: string) => `“${name}”`;

/** '3 observations and 2 relations', '1 observation', '' when there is nothing. */
function holdings(observations: number, relations: number): string {
  const parts: string[] = [];
  if (observations > 0) parts.push(pluralize(observations, 'observation'));
  if (relations > 0) parts.push(pluralize(relations, 'relation'));
  return parts.join(' and ');
}

/**
 * What merging `source` into `target` does, before it runs: '3 observations
 * and 2 relations move to Ada Lovelace. “A. Lovelace” is removed and becomes
 * an alias.'
 */
export function mergePreview(source: DuplicateEntity, target: DuplicateEntity): string {
  const moving = holdings(source.observationsCount, source.relationsCount);
  const gone = `${quoted(source.name)} is removed and becomes an alias.`;
  if (moving === '') return `${quoted(source.name)} has nothing to move. ${gone}`;
  const one = source.observationsCount + source.relationsCount === 1;
  return `${moving} ${one ? 'moves' : 'move'} to ${target.name}. ${gone}`;
}

/** The finer print under the preview: repeats, the type kept, and Undo. */
export function mergeNotes(source: DuplicateEntity, target: DuplicateEntity): string[] {
  const notes = [
    `Observations ${target.name} already has, and relations between the two, are kept once; metadata fills only the keys it lacks.`,
  ];
  if (source.type !== target.type) {
    notes.push(`${target.name} keeps its type, ${target.type}.`);
  }
  notes.push('You can undo the merge afterwards.');
  return notes;
}

/** The notice after a merge: 'Merged “A. Lovelace” into Ada Lovelace', and what moved. */
export function mergedNotice(
  result: MergeResult,
  source: DuplicateEntity,
): { message: string; description: string } {
  const { observations, relations, duplicatesDropped } = result.merged;
  const moved = holdings(observations, relations);
  const parts = [moved === '' ? 'Nothing else moved' : `${capitalise(moved)} moved`];
  if (duplicatesDropped > 0) parts.push(`${pluralize(duplicatesDropped, 'repeat')} kept once`);
  return {
    message: `Merged ${quoted(source.name)} into ${result.entity.name}`,
    description: `${parts.join('; ')}.`,
  };
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
