import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import { KeyUsageTracker } from './key-usage.js';
import { keysRoutes } from './keys.routes.js';
import { createKeysService, instanceSecret } from './keys.service.js';

export type { KeysService } from './keys.service.js';

/** API keys and personal keys: the credentials agents hold. */
export const keysFeature = defineFeature({
  name: 'keys',
  async create(context, { entitlements }: { entitlements: Entitlements }) {
    const usage = new KeyUsageTracker(context.db, context.onError);
    usage.start(5_000);
    context.onClose(() => usage.stop());
    return createKeysService({
      db: context.db,
      now: context.now,
      usage,
      secret: await instanceSecret(context.db, context.config.SECRET_KEY),
      credentialsChanged: context.credentialsChanged,
      verified: context.verified,
      entitlements,
    });
  },
  routes: keysRoutes,
});
