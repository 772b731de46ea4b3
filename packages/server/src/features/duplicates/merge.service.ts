import type { MergeResult } from '@engram/shared';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { requireSpaceAccess } from '../../lib/space-access.js';
import { graphWrites, type GraphService } from '../graph/index.js';

export interface MergeDeps {
  graph: Pick<GraphService, 'write' | 'getEntity'>;
}

/** A merge as a caller names it: by ids (REST, the web app) or by names and aliases (MCP). */
export type MergeRequest =
  | { targetId: string; sourceIds: string[]; name?: string | undefined; type?: string | undefined }
  | { target: string; sources: string[]; name?: string | undefined; type?: string | undefined };

/**
 * Merges the sources into the target as one call through the graph's write
 * path (`graphWrites.mergeEntities`: one transaction, one `entity_merged`
 * event, history's before-images of every row it moves): the answer's
 * `callSeq` reverts it. 404 when an entity is not in the space, 403 for a
 * credential that may not write, 402 past the plan's observations per entity.
 */
export async function mergeEntities(
  deps: MergeDeps,
  auth: SpaceAuth,
  request: MergeRequest,
): Promise<MergeResult> {
  requireSpaceAccess(auth, auth.space.slug, 'write');
  const { result, seqs } = await deps.graph.write(auth, async (scope) => {
    const ids =
      'targetId' in request
        ? { targetId: request.targetId, sourceIds: request.sourceIds }
        : await graphWrites.idsOfNames(scope, request.target, request.sources);
    return graphWrites.mergeEntities(scope, { ...ids, name: request.name, type: request.type });
  });
  const { row, merged } = result;
  // The merge's first seq is the call a revert undoes.
  return { entity: await deps.graph.getEntity(auth, row.id), merged, callSeq: seqs[0] ?? 0 };
}
