import type { EmbeddingsService } from '../embeddings/index.js';
import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import type { GraphService } from '../graph/index.js';
import type { KeysService } from '../keys/index.js';
import type { UsageMeter } from '../usage/index.js';
import type { WebhooksService } from '../webhooks/index.js';
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
