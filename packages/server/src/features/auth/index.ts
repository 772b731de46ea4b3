import type { AccountsService } from '../accounts/index.js';
import { defineFeature } from '../feature.js';
import type { KeysService } from '../keys/index.js';
import type { MembersService } from '../members/index.js';
import type { OAuthService } from '../oauth/index.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService } from './auth.service.js';
import { authThrottles } from './throttle.js';

export type { AuthService } from './auth.service.js';

/** Sign-up, sign-in, sessions, profile and password. */
export const authFeature = defineFeature({
  name: 'auth',
  create: (
    { config, db, now, credentialsChanged, verified },
    {
      keys,
      accounts,
      oauth,
      members,
    }: {
      keys: KeysService;
      accounts: AccountsService;
      oauth: OAuthService;
      members: MembersService;
    },
  ) =>
    createAuthService({
      db,
      sessionTtlDays: config.SESSION_TTL_DAYS,
      now,
      keys,
      credentialsChanged,
      verified,
      accounts,
      oauth,
      members,
      throttles: authThrottles({
        loginMaxFailures: config.LOGIN_MAX_FAILURES,
        loginLockMinutes: config.LOGIN_LOCK_MINUTES,
        passwordAttempts: config.PASSWORD_CHANGE_ATTEMPTS,
        registerConflictsPerHour: config.REGISTER_CONFLICTS_PER_HOUR,
      }),
    }),
  routes: authRoutes,
});
