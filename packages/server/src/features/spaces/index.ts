import type { AccountsService } from '../accounts/index.js';
import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import type { KeysService } from '../keys/index.js';
import { spacesRoutes } from './spaces.routes.js';
import { createSpacesService } from './spaces.service.js';

export type { SpacesService } from './spaces.service.js';

/** Memory spaces: separate graphs inside an account, and which one a request acts in. */
export const spacesFeature = defineFeature({
  name: 'spaces',
  create: (
    context,
    {
      entitlements,
      accounts,
      keys,
    }: { entitlements: Entitlements; accounts: AccountsService; keys: KeysService },
  ) =>
    createSpacesService({
      db: context.db,
      entitlements,
      purge: accounts.purge,
      spaceDeleted: [keys.deleteSpaceKeys],
    }),
  routes: spacesRoutes,
});
