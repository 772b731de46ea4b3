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

/**
 * History's two faces: `api`, what adapters and later features call (an
 * entity's versions and authors, the account's changes, revert and undo,
 * the change log's replay and holds), and `port`, what it attaches to the
 * graph (the reads as of a past seq, and purge).
 */
export function createHistoryService(deps: HistoryDeps) {
  return {
    api: bindService(deps, {
      entityHistory: versions.entityHistory,
      entityAuthors: versions.entityAuthors,
      listChanges: versions.listChanges,
      revertChange: versions.revertChange,
      undoLast: versions.undoLast,
      changesAfter,
      changeLogBounds,
      holdChangeLog,
      releaseChangeLog,
    }),
    port: bindService(deps, {
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
      purgeEntity: versions.purgeEntity,
    }),
  };
}

/** What history's routes and the features after it call. */
export type HistoryApi = ReturnType<typeof createHistoryService>['api'];
