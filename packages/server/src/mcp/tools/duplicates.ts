import { DUPLICATES_PAGE_DEFAULT } from '@engram/shared';
import type { ToolContext, ToolHandlers } from './context.js';
import { result, toMcpEntity } from './answers.js';

/** The tools that find entities that are one thing, and merge them. */
export function duplicateTools({
  auth,
  deps,
  run,
}: ToolContext): Pick<ToolHandlers, 'find_duplicates' | 'merge_entities'> {
  return {
    find_duplicates: ({ limit, cursor }) =>
      run({ type: 'query', resource: 'entity' }, async () => {
        const page = await deps.duplicates.listDuplicates(auth, {
          limit: limit ?? DUPLICATES_PAGE_DEFAULT,
          cursor,
        });
        const lines = page.candidates.map(
          (candidate) =>
            `${candidate.entities.map((entity) => `"${entity.name}" (${entity.type})`).join(' and ')}: ${candidate.score.toFixed(2)}, ${candidate.reasons.join('; ')}`,
        );
        const text =
          lines.length === 0
            ? 'No likely duplicates found.'
            : `${lines.join('\n')}\n\nMerge a pair with merge_entities, naming the entity to keep as target.`;
        return page.nextCursor
          ? result(
              page,
              `${text}\n\n(truncated: more pairs follow; call find_duplicates with cursor "${page.nextCursor}" for the next page)`,
            )
          : result(page, text);
      }),
    merge_entities: ({ target, sources, name, entityType }) =>
      run({ type: 'update', resource: 'entity' }, async () => {
        const answer = await deps.duplicates.mergeEntities(auth, {
          target,
          sources,
          name,
          type: entityType,
        });
        const structured = {
          entity: { ...toMcpEntity(answer.entity), aliases: answer.entity.aliases },
          merged: answer.merged,
          callSeq: answer.callSeq,
        };
        return result(
          structured,
          `Merged ${answer.merged.entities} ${answer.merged.entities === 1 ? 'entity' : 'entities'} into "${answer.entity.name}" (${answer.merged.observations} observations and ${answer.merged.relations} relations moved, ${answer.merged.duplicatesDropped} repeats dropped). Undo with undo_last.`,
        );
      }),
  };
}
