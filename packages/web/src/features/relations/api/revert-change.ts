import { revertResult, type RevertResult } from '@engram/shared';
import { useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { ALL_LIVE_QUERY_KEYS } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/** POST /api/changes/{seq}/revert: undoes the whole call that made change `seq` (docs/history.md). */
export function revertChange(space: string, seq: number): Promise<RevertResult> {
  return apiRequest(`/api/changes/${seq}/revert`, { method: 'POST', schema: revertResult, space });
}

/**
 * Reverts a call and refreshes every live read (a call may have touched any),
 * as a plain function: a notice's Undo calls it after its dialog is gone.
 */
export function useUndoCall() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return async (seq: number) => {
    const result = await revertChange(space, seq);
    await Promise.all(
      ALL_LIVE_QUERY_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })),
    );
    return result;
  };
}
