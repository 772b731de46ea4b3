import { randomUUID } from 'node:crypto';
import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import type { HistoryService } from '../history/index.js';
import type { SpacesService } from '../spaces/index.js';
import { DEFAULT_DISPATCH, WebhookDispatcher, type DispatchTuning } from './webhook-dispatcher.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { createWebhooksService } from './webhooks.service.js';

export type { WebhooksService } from './webhooks.service.js';

export interface WebhooksTuning extends Partial<DispatchTuning> {
  /** Tests run the dispatcher by hand (`dispatcher.drain()`), not on its timer. */
  manual?: boolean;
  /** Extra certificate authority to trust (tests serve https with a certificate of their own). */
  ca?: string;
}

/** Outbound webhooks: endpoints, their deliveries from the change log, and the log a person reads. */
export const webhooksFeature = defineFeature({
  name: 'webhooks',
  async create(
    context,
    {
      history,
      spaces,
      entitlements,
    }: { history: HistoryService; spaces: SpacesService; entitlements: Entitlements },
    tuning?: WebhooksTuning,
  ) {
    const deps = {
      db: context.db,
      now: context.now,
      changeLog: history,
      send: {
        allowPrivateNetwork: context.config.ALLOW_PRIVATE_NETWORK_TARGETS === 'true',
        ca: tuning?.ca,
      },
      planOf: (accountId: string) => entitlements.planOf(accountId),
    };
    const dispatcher = new WebhookDispatcher(
      { ...deps, node: randomUUID() },
      {
        ...DEFAULT_DISPATCH,
        // One embedded process makes every write itself and wakes on it: its timer is for retries.
        pollMs: context.config.DATABASE_URL ? 1_000 : 5_000,
        ...tuning,
      },
      (error) => context.onError(error, 'webhook delivery failed; retried later'),
    );
    if (!context.config.DATABASE_URL) {
      // The embedded database has one process (db/data-lock.ts): leases left by a
      // process that was killed are its own, and delivery resumes at once.
      await dispatcher.releaseAllLeases();
    }
    if (!tuning?.manual) {
      dispatcher.start();
      context.onPublished(() => dispatcher.nudge());
    }
    context.onClose(() => dispatcher.stop());
    return {
      ...createWebhooksService({
        ...deps,
        entitlements,
        spaces,
        nudge: () => dispatcher.nudge(),
      }),
      /** Delivers what is due (tests call `drain()` instead of waiting for the timer). */
      dispatcher,
    };
  },
  routes: webhooksRoutes,
});
