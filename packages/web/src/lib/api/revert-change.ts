import { revertResult, type RevertResult } from '@engram/shared';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { ALL_LIVE_QUERY_KEYS } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/**
 * POST /api/changes/{seq}/revert: undoes the whole call that made change
 * `seq` (a merge's `callSeq` brings the sources back with their observations
 * and relations; 409 with details when something changed since;
 * docs/history.md).
 */
export function revertChange(space: string, seq: number): Promise<RevertResult> {
  return apiRequest(`/api/changes/${seq}/revert`, { method: 'POST', schema: revertResult, space });
}

/** A call may have touched any entity, relation or count: every live read is refreshed. */
function refreshAll(queryClient: QueryClient) {
  return Promise.all(
    ALL_LIVE_QUERY_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })),
  );
}

/** The entity page's Revert of one change in its history. */
export function useRevertChange() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (seq: number) => revertChange(space, seq),
    onSuccess: () => refreshAll(queryClient),
  });
}

/**
 * Reverts a call and refreshes what it touched, as a plain function: a
 * notice's Undo calls it after the screen that made the change is gone.
 */
export function useUndoCall() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return async (seq: number) => {
    const result = await revertChange(space, seq);
    await refreshAll(queryClient);
    return result;
  };
}
