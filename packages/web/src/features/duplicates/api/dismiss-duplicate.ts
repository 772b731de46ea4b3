import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { duplicatesPrefix } from '@/lib/api/duplicates';
import { useSpaceSlug } from '@/lib/space';

type Pair = [string, string];

/**
 * POST /api/duplicates/dismiss {entityIds}: 204, and the pair is not proposed
 * again until one of the two is renamed. Not a graph change: no history, no
 * event, so the lists are refreshed here.
 */
export function dismissDuplicate(space: string, entityIds: Pair): Promise<unknown> {
  return apiRequest('/api/duplicates/dismiss', { method: 'POST', body: { entityIds }, space });
}

/** POST /api/duplicates/undismiss {entityIds}: 204, the dismissal taken back. */
export function undismissDuplicate(space: string, entityIds: Pair): Promise<unknown> {
  return apiRequest('/api/duplicates/undismiss', { method: 'POST', body: { entityIds }, space });
}

function refreshPairs(queryClient: QueryClient, space: string) {
  return queryClient.invalidateQueries({ queryKey: duplicatesPrefix(space) });
}

export function useDismissDuplicate() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (entityIds: Pair) => dismissDuplicate(space, entityIds),
    onSuccess: () => refreshPairs(queryClient, space),
  });
}

/** Takes a dismissal back as a plain call: a notice's Undo may come after the screen is gone. */
export function useUndismiss() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return (entityIds: Pair) =>
    undismissDuplicate(space, entityIds).then(() => refreshPairs(queryClient, space));
}
