import type { EmbeddingsService } from '../embeddings/index.js';
import type { GraphService } from '../graph/index.js';
import { defineFeature } from '../feature.js';
import { recallRoutes } from './recall.routes.js';
import { createRecallService } from './recall.service.js';

export type { RecallService } from './recall.service.js';
export { factDate } from './recall.service.js';

/** Ranked retrieval: the observations that answer a question, and an entity-grouped context. */
export const recallFeature = defineFeature({
  name: 'recall',
  create: (
    context,
    { embeddings, graph }: { embeddings: EmbeddingsService; graph: GraphService },
  ) => createRecallService({ db: context.db, embeddings, graph, now: context.now }),
  routes: recallRoutes,
});
