import type { BillingService } from '../billing/index.js';
import { bindService, defineFeature } from '../feature.js';
import { AccountPurge, deleteUser, type PurgeOptions } from './accounts.service.js';

/** Deleting a person and the accounts they alone own; the background purge of their rows. */
export const accountsFeature = defineFeature({
  name: 'accounts',
  create(context, { billing }: { billing: BillingService }, tuning?: Partial<PurgeOptions>) {
    const purge = new AccountPurge(
      context.db,
      {
        batchRows: 5_000,
        intervalMs: 60_000,
        ...tuning,
        afterBatch: async (rows) => {
          // PGlite has no autovacuum: a purge is a large change like any other.
          context.noteChanges(rows);
          await tuning?.afterBatch?.(rows);
        },
      },
      (error) => context.onError(error, 'account purge failed; retried later'),
    );
    purge.start();
    context.onClose(() => purge.stop());
    const deps = {
      db: context.db,
      billing,
      credentialsChanged: context.credentialsChanged,
      purge,
    };
    return { purge, ...bindService(deps, { deleteUser }) };
  },
});

export type AccountsService = Awaited<ReturnType<typeof accountsFeature.create>>;
