import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import { UsageMeter } from './usage.service.js';

export { UsageMeter } from './usage.service.js';
export type { Operation, UsageReport } from './usage.service.js';
export { registerMetering } from './usage.routes.js';

/** Operations metered per account and day, admitted against the plan's monthly allowance. */
export const usageFeature = defineFeature({
  name: 'usage',
  create(context, { entitlements }: { entitlements: Entitlements }) {
    const meter = new UsageMeter(context.db, context.now, entitlements, context.onError);
    meter.start(5_000);
    context.onClose(() => meter.stop());
    return meter;
  },
});
