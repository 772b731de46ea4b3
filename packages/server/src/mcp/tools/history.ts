import type { ToolContext, ToolHandlers } from './context.js';
import { result } from './answers.js';

/** The tools over the graph's history: taking back this credential's last write. */
export function historyTools({ auth, deps, run }: ToolContext): Pick<ToolHandlers, 'undo_last'> {
  return {
    undo_last: () =>
      run({ type: 'update', resource: 'graph' }, async () => {
        const answer = await deps.history.undoLast(auth);
        return result(
          answer,
          `Undid the call of seq:${answer.reverted.callSeq} (${answer.reverted.changes} changes)`,
        );
      }),
  };
}
