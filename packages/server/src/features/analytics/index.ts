import type { EmbeddingsService } from '../embeddings/embeddings.service.js';
import type { Entitlements } from '../entitlements/entitlements.service.js';
import { defineFeature } from '../feature.js';
import type { GraphService } from '../graph/graph.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { UsageMeter } from '../usage/usage.service.js';
import type { WebhooksService } from '../webhooks/webhooks.service.js';
import { analyticsRoutes } from './analytics.routes.js';
import { createAnalyticsService } from './analytics.service.js';

/** The dashboard's and billing screen's numbers, composed from other features' counters. */
export const analyticsFeature = defineFeature({
  name: 'analytics',
  create: (
    context,
    needs: {
      usage: UsageMeter;
      entitlements: Entitlements;
      embeddings: EmbeddingsService;
      keys: KeysService;
      graph: GraphService;
      webhooks: WebhooksService;
    },
  ) => createAnalyticsService({ now: context.now, ...needs }),
  routes: analyticsRoutes,
});
