import { defineFeature } from '../feature.js';
import type { GraphService } from '../graph/index.js';
import { ExportGuard } from './export-guard.service.js';
import { transferRoutes } from './transfer.routes.js';

/** GET /api/export: the lossless export as a download, one per account at a time. */
export const transferFeature = defineFeature({
  name: 'transfer',
  create: (context, { graph }: { graph: GraphService }) => ({
    graph,
    // One per node: the accounts exporting here, and their leases shared with other nodes.
    exports: new ExportGuard(context.db, (error) => context.onError(error, 'export lease')),
  }),
  routes: transferRoutes,
});
