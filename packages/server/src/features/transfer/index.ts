import { bindService, defineFeature } from '../feature.js';
import type { GraphService } from '../graph/index.js';
import { ExportGuard } from './export-guard.service.js';
import { exportJsonl, importJsonl } from './jsonl.js';
import { exportLossless, importFrom, importLossless } from './lossless.js';
import type { TransferDeps } from './transfer.service.js';
import {
  exportMarkdown,
  importMarkdown,
  importMarkdownZip,
  importMem0,
} from './formats.service.js';
import { transferRoutes } from './transfer.routes.js';

/**
 * Moving a space's graph in and out: the lossless export (GET /api/export and
 * `engram export`), the reference server's JSONL, Markdown notes (basic-memory,
 * Obsidian) and mem0's exports; imports (POST /api/import and `engram import`)
 * write through the graph's write path a batch at a time.
 */
export const transferFeature = defineFeature({
  name: 'transfer',
  create: (context, { graph }: { graph: GraphService }) => {
    const deps: TransferDeps = { db: context.db, graph };
    return {
      ...bindService(deps, {
        exportJsonl,
        exportLossless,
        exportMarkdown,
        importFrom,
        importJsonl,
        importLossless,
        importMarkdown,
        importMarkdownZip,
        importMem0,
      }),
      // One per node: the accounts exporting here, and their leases shared with other nodes.
      exports: new ExportGuard(context.db, (error) => context.onError(error, 'export lease')),
    };
  },
  routes: transferRoutes,
});

export { formatOf } from './lossless.js';
export type { NoteFile } from './markdown.js';
export { wanted as isNotePath } from './zip-reader.js';

export type TransferService = Awaited<ReturnType<typeof transferFeature.create>>;
