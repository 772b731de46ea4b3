import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import type { KeysService } from '../keys/index.js';
import type { OAuthService } from '../oauth/index.js';
import { invitationMailer, invitationOrigin } from './invitation-mail.js';
import { MemberActivity } from './member-activity.js';
import { membersRoutes } from './members.routes.js';
import { createMembersService } from './members.service.js';

export type { MembersService } from './members.service.js';

/** Teams: who belongs to an account and as what, invitations, and which account a request acts in. */
export const membersFeature = defineFeature({
  name: 'members',
  create(
    context,
    {
      entitlements,
      keys,
      oauth,
    }: { entitlements: Entitlements; keys: KeysService; oauth: OAuthService },
  ) {
    const activity = new MemberActivity(context.db, context.onError);
    activity.start(30_000);
    context.onClose(() => activity.stop());
    return createMembersService({
      db: context.db,
      now: context.now,
      verified: context.verified,
      credentialsChanged: context.credentialsChanged,
      entitlements,
      keys,
      oauth,
      activity,
      mailer: invitationMailer(context.config),
      linkOrigin: invitationOrigin(context.config),
      onError: context.onError,
    });
  },
  routes: membersRoutes,
});
