import { roleAtLeast, type Role } from '@engram/shared';

/**
 * What a role may do on the screens (issue 40; docs/product.md, Calls;
 * docs/decisions/028-teams.md). The server decides (403); these rules only
 * keep a screen from offering what it would refuse:
 *
 * - owner: everything, billing and members included;
 * - admin: everything but billing and owners: every API key, webhooks,
 *   deleting spaces;
 * - member: the graph (entities, relations, observations, Revert in
 *   history), creating and renaming spaces, their own API keys;
 * - viewer: reads only.
 *
 * A role not known yet (null: /auth/me has not named the account) allows
 * everything, as before teams: the server still decides.
 */
export type RoleAction =
  /** Create, edit and delete entities, relations and observations; revert history. */
  | 'editGraph'
  | 'createSpace'
  | 'renameSpace'
  | 'deleteSpace'
  /** Create, roll and delete their own API keys (and list them). */
  | 'manageOwnKeys'
  /** Every member's keys, not only their own. */
  | 'manageEveryKey'
  | 'manageWebhooks'
  | 'manageMembers'
  | 'changeBilling';

/** The least role that may do each action. */
const LEAST_ROLE: Record<RoleAction, Role> = {
  editGraph: 'member',
  createSpace: 'member',
  renameSpace: 'member',
  deleteSpace: 'admin',
  manageOwnKeys: 'member',
  manageEveryKey: 'admin',
  manageWebhooks: 'admin',
  manageMembers: 'admin',
  changeBilling: 'owner',
};

/** Whether `role` may do `action` (null, unknown yet: yes, and the server decides). */
export function can(role: Role | null, action: RoleAction): boolean {
  return role === null || roleAtLeast(role, LEAST_ROLE[action]);
}

/** The title of a write a viewer is not offered, and the note where its place is empty. */
export const VIEWER_READ_ONLY = "Viewers can read but not change this account's memory";

/** The API Keys screen's note for a viewer, where Create API Key would be. */
export const VIEWER_NO_KEYS =
  "Viewers can't create API keys; your personal key in Settings reads this account";

/** Settings → Webhooks for members and viewers, instead of the endpoints. */
export const WEBHOOKS_ADMINS_ONLY = 'Only owners and admins manage webhooks.';
