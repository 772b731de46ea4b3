import { defineFeature } from '../feature.js';
import type { GraphService } from '../graph/index.js';
import type { HistoryService } from '../history/index.js';
import { readsRoutes } from './reads.routes.js';
import { createReadsService } from './reads.service.js';

export type { AsOf, PastPoint, ReadsService } from './reads.service.js';
export { asOfArgument } from './reads.service.js';

/**
 * One read path over the present and the past: each read that takes `asOf`
 * goes to the graph (the present) or to history (the past), chosen here.
 */
export const readsFeature = defineFeature({
  name: 'reads',
  create: (_context, { graph, history }: { graph: GraphService; history: HistoryService }) =>
    createReadsService({ graph, past: history.past }),
  routes: readsRoutes,
});
