import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import type { HistoryService } from '../history/index.js';
import { EmbeddingIndexer, type IndexerOptions } from './embedding-indexer.js';
import { createEmbeddingsService, embeddingsFromConfig } from './embeddings.service.js';

export type { EmbeddingsService, SemanticCandidate } from './embeddings.service.js';

/**
 * The optional semantic index: without EMBEDDINGS_URL its `embedder` is null
 * and nothing of it runs or writes.
 */
export const embeddingsFeature = defineFeature({
  name: 'embeddings',
  create(
    context,
    { entitlements, history }: { entitlements: Entitlements; history: HistoryService },
    tuning?: Partial<IndexerOptions>,
  ) {
    const deps = embeddingsFromConfig(context.db, context.config, context.onError);
    const indexer = deps.embedder
      ? new EmbeddingIndexer(
          { db: context.db, embedder: deps.embedder, entitlements, changeLog: history },
          tuning,
          (error) => context.onError(error, 'embedding observations failed; retried later'),
        )
      : undefined;
    indexer?.start();
    context.onClose(() => indexer?.stop());
    return { ...createEmbeddingsService(deps), indexer };
  },
});
