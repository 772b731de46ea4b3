import { CONTEXT_CHARS_DEFAULT, RECALL_LIMIT_DEFAULT, type RecallAnswer } from '@engram/shared';
import { asOfArgument } from '../../features/reads/index.js';
import { factDate } from '../../features/recall/index.js';
import type { ToolContext, ToolHandlers } from './context.js';
import { result } from './answers.js';

/**
 * Recall's answer as an agent reads it: one numbered line per observation,
 * with its entity and the fact's date (when it held, else "noted" and when
 * it was written), best first.
 */
function recallText(answer: RecallAnswer): string {
  if (answer.abstained) {
    return `Nothing in memory answers "${answer.query}": the best matches were too weak (pass abstain: false for best-effort results).`;
  }
  if (answer.results.length === 0) return `Nothing in memory answers "${answer.query}".`;
  return answer.results
    .map(
      (hit, i) =>
        `${i + 1}. [${hit.entityName} (${hit.entityType}), ${factDate(hit) ?? `noted ${hit.createdAt.slice(0, 10)}`}] ${hit.observation}`,
    )
    .join('\n');
}

/** The tools that answer a question in plain words: facts, or a block of context. */
export function recallTools({
  auth,
  deps,
  run,
}: ToolContext): Pick<ToolHandlers, 'recall' | 'get_context'> {
  return {
    recall: ({ query, limit, asOf, ...filters }) =>
      run({ type: 'query', resource: 'observation' }, async () => {
        const input = { query, limit: limit ?? RECALL_LIMIT_DEFAULT, ...filters };
        const answer = await deps.recall.recall(auth, input, asOfArgument(asOf, 'asOf'));
        return result(answer, recallText(answer));
      }),
    get_context: ({ query, maxChars, ...time }) =>
      run({ type: 'query', resource: 'observation' }, async () => {
        const answer = await deps.recall.context(auth, {
          query,
          maxChars: maxChars ?? CONTEXT_CHARS_DEFAULT,
          ...time,
        });
        const nothing = answer.abstained
          ? 'Nothing in memory answers that: the best matches were too weak (pass abstain: false for best-effort context).'
          : 'Nothing in memory answers that.';
        return result(answer, answer.context || nothing);
      }),
  };
}
