import { bindService } from '../feature.js';
import * as past from './as-of.service.js';
import {
  changeLogBounds,
  changesAfter,
  holdChangeLog,
  releaseChangeLog,
} from './change-log.service.js';
import type { HistoryDeps } from './history-deps.js';
import * as versions from './versions.service.js';

export type { RecallQuestion } from './as-of.service.js';

/**
 * History's service: what adapters and later features call (an entity's
 * versions and authors, the account's changes, revert and undo, an entity's
 * delete and purge, the change log's replay and holds), and `past`, the
 * reads as of a past seq that the reads feature sends `asOf` to.
 */
export function createHistoryService(deps: HistoryDeps) {
  return {
    ...bindService(deps, {
      entityHistory: versions.entityHistory,
      entityAuthors: versions.entityAuthors,
      listChanges: versions.listChanges,
      revertChange: versions.revertChange,
      undoLast: versions.undoLast,
      deleteEntity: versions.deleteEntity,
      purgeEntity: versions.purgeEntity,
      changesAfter,
      changeLogBounds,
      holdChangeLog,
      releaseChangeLog,
    }),
    past: bindService(deps, {
      seqOf: versions.resolveAsOf,
      getEntity: past.getEntityAt,
      listEntities: past.listEntitiesAt,
      listRelations: past.listRelationsAt,
      graphData: past.graphDataAt,
      graphAround: past.graphAroundAt,
      readGraph: past.readGraphAt,
      searchNodes: past.searchNodesAt,
      openNodes: past.openNodesAt,
      recall: past.recallAt,
    }),
  };
}

/** What history's routes and the features after it call. */
export type HistoryApi = ReturnType<typeof createHistoryService>;

/** The reads as of a past seq (`seqOf` resolves `asOf` to one). */
export type PastReads = HistoryApi['past'];
