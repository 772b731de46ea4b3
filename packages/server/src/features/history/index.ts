import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import type { GraphService } from '../graph/index.js';
import type { Db } from '../../db/connection.js';
import { ChangeLogCompactor, changesAfter } from './change-log.service.js';
import type { HistoryDeps } from './history-deps.js';
import { createHistoryService } from './history.service.js';
import { historyRoutes } from './history.routes.js';

/**
 * History: every version of the graph's rows, reverting a call and undoing
 * an agent's last, an entity's delete and purge, the change log's replay,
 * holds and compaction, and every read as of a past point (`past`, which
 * the reads feature calls for a read given `asOf`).
 */
export const historyFeature = defineFeature({
  name: 'history',
  create(context, { entitlements, graph }: { entitlements: Entitlements; graph: GraphService }) {
    const { db, now, config } = context;
    const deps: HistoryDeps = {
      db,
      bounds: { maxRows: config.READ_MAX_ROWS, maxBytes: config.READ_MAX_BYTES },
      graph,
    };
    const service = createHistoryService(deps);
    const changeLog = new ChangeLogCompactor(
      db,
      entitlements,
      now,
      { retentionDays: config.CHANGE_LOG_RETENTION_DAYS, intervalMs: 10 * 60_000 },
      (error) => context.onError(error, 'change log compaction failed'),
    );
    changeLog.start();
    context.onClose(() => changeLog.stop());
    return {
      ...service,
      /** Removes change-log events past their retention window (tests run it by hand). */
      changeLog,
    };
  },
  routes: historyRoutes,
});

export type HistoryService = Awaited<ReturnType<typeof historyFeature.create>>;
export type { PastReads, RecallQuestion } from './history.service.js';

/**
 * The change log's reader (`changesAfter`) over `db`, as a follower takes it
 * (follower/follower.ts): for a worker made outside `create` (tests).
 */
export const changeLogReader = (db: Db) => (accountId: string, seq: number, limit: number) =>
  changesAfter({ db }, { accountId }, seq, limit);

/** The account's last seq: where a follower starts over after the log was compacted past it. */
export { latestSeq } from './change-log.repository.js';
