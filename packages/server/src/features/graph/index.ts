import type { Entitlements } from '../entitlements/index.js';
import { bindService, defineFeature } from '../feature.js';
import {
  ChangeLogCompactor,
  changeLogBounds,
  changesAfter,
  holdChangeLog,
  releaseChangeLog,
} from './change-log.service.js';
import { AccountGate } from './account-gate.js';
import { graphRoutes } from './graph.routes.js';
import { createGraphAccess, type GraphDeps } from './graph.service.js';
export { asOfArgument, type AsOf, type MemoryGraph } from './graph.service.js';
export { changesAfter } from './change-log.service.js';
import { exportJsonl, exportLossless, importFrom, importLossless } from './transfer.service.js';

/**
 * The graph: entities, observations and relations by id or name, its reads,
 * import and export, and the change log that realtime and MCP replay.
 */
export const graphFeature = defineFeature({
  name: 'graph',
  create(context, { entitlements }: { entitlements: Entitlements }) {
    const { db, now, config } = context;
    const deps: GraphDeps = {
      db,
      now,
      planOf: (db, accountId) => entitlements.planOf(accountId, now(), db),
      bounds: { maxRows: config.READ_MAX_ROWS, maxBytes: config.READ_MAX_BYTES },
      publish: context.publish,
      writers: new AccountGate(config.STATEMENT_TIMEOUT_MS),
    };
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
      ...createGraphAccess(deps),
      ...bindService(deps, {
        exportJsonl,
        exportLossless,
        importFrom,
        importLossless,
        changesAfter,
        changeLogBounds,
        holdChangeLog,
        releaseChangeLog,
      }),
      /** Removes change-log events past their retention window (tests run it by hand). */
      changeLog,
    };
  },
  routes: graphRoutes,
});

export type GraphService = Awaited<ReturnType<typeof graphFeature.create>>;
