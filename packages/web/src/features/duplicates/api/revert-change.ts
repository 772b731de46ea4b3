import { revertResult, type RevertResult } from '@engram/shared';
import { useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { ALL_LIVE_QUERY_KEYS } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/**
 * POST /api/changes/{seq}/revert: undoes the whole call that made change
 * `seq` (a merge's `callSeq`: the sources come back with their observations
 * and relations; 409 with details when something changed since).
 */
export function revertChange(space: string, seq: number): Promise<RevertResult> {
  return apiRequest(`/api/changes/${seq}/revert`, { method: 'POST', schema: revertResult, space });
}

/**
 * Reverts a call and refreshes every live read, as a plain function: a
 * notice's Undo calls it after the screen that made the change may be gone.
 */
export function useUndoCall() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return (seq: number) =>
    revertChange(space, seq).then(async (result) => {
      await Promise.all(
        ALL_LIVE_QUERY_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
      return result;
    });
}
