import type { EmbeddingsService } from '../embeddings/index.js';
import { defineFeature } from '../feature.js';
import type { ReadsService } from '../reads/index.js';
import { recallRoutes } from './recall.routes.js';
import { createRecallService } from './recall.service.js';

export type { RecallService } from './recall.service.js';
export { factDate } from './recall.service.js';

/** Ranked retrieval: the observations that answer a question, and an entity-grouped context. */
export const recallFeature = defineFeature({
  name: 'recall',
  create: (
    context,
    { embeddings, reads }: { embeddings: EmbeddingsService; reads: ReadsService },
  ) => createRecallService({ db: context.db, embeddings, reads, now: context.now }),
  routes: recallRoutes,
});
