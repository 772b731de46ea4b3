import { defineFeature } from '../feature.js';
import { Entitlements } from './entitlements.service.js';

export {
  currentPlan,
  effectivePlan,
  Entitlements,
  isUpgrade,
  LIVE,
  pendingDowngrade,
} from './entitlements.service.js';

/** The plan whose limits apply to each account: one cached reader for every limit. */
export const entitlementsFeature = defineFeature({
  name: 'entitlements',
  create: (context) => new Entitlements(context.db, context.now),
});
