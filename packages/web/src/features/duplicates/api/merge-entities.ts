import { mergeResult, type MergeInput, type MergeResult } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest } from '@/lib/api-client';
import { duplicatesPrefix } from '@/lib/api/duplicates';
import { liveQueryKeys } from '@/lib/realtime';
import { useSpaceSlug } from '@/lib/space';

/**
 * POST /api/entities/merge {targetId, sourceIds}: the sources' observations
 * and relations move to the target, the sources are removed and their names
 * become the target's aliases. `callSeq` names the call, which a revert
 * undoes (docs/history.md). 404 another space's entity, 403 a viewer, 402 a
 * plan limit, 409 a name clash.
 */
export function mergeEntities(space: string, input: MergeInput): Promise<MergeResult> {
  return apiRequest('/api/entities/merge', {
    method: 'POST',
    body: input,
    schema: mergeResult,
    space,
  });
}

export function useMergeEntities() {
  const queryClient = useQueryClient();
  const space = useSpaceSlug();
  return useMutation({
    mutationFn: (input: MergeInput) => mergeEntities(space, input),
    onSuccess: (_result, { sourceIds }) => {
      // The sources are gone: nothing should show their old page again.
      for (const id of sourceIds) queryClient.removeQueries({ queryKey: liveQueryKeys.entity(id) });
      // Their relations now end at the target: every page naming them, the lists and the graph.
      // Not waited for: the dialog closes and the notice shows at once, the reads follow.
      void Promise.all(
        [
          liveQueryKeys.entities,
          liveQueryKeys.entity(),
          liveQueryKeys.relations,
          liveQueryKeys.graph,
        ].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    },
    onError: (error) => {
      // One of the two is gone (or never was this space's): the pairs shown are out of date.
      if (error instanceof ApiError && error.status === 404) {
        void queryClient.invalidateQueries({ queryKey: duplicatesPrefix(space) });
      }
    },
  });
}
