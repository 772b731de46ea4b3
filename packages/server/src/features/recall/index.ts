import type { EmbeddingsService } from '../embeddings/embeddings.service.js';
import { defineFeature } from '../feature.js';
import { recallRoutes } from './recall.routes.js';
import { createRecallService } from './recall.service.js';

export type { RecallService } from './recall.service.js';

/** Ranked retrieval: the observations that answer a question, and an entity-grouped context. */
export const recallFeature = defineFeature({
  name: 'recall',
  create: (context, { embeddings }: { embeddings: EmbeddingsService }) =>
    createRecallService({ db: context.db, embeddings }),
  routes: recallRoutes,
});
