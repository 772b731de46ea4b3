import { ROLES, type Role } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { can, type RoleAction } from './role-rules';

/** The roles that may do `action`, most powerful first. */
const allowed = (action: RoleAction): Role[] => ROLES.filter((role) => can(role, action));

describe('what a role may do on the screens', () => {
  it('owners do everything, billing included', () => {
    expect(allowed('changeBilling')).toEqual(['owner']);
  });

  it('admins manage members, every key, webhooks and deleting spaces', () => {
    for (const action of [
      'manageMembers',
      'manageEveryKey',
      'manageWebhooks',
      'deleteSpace',
    ] as const) {
      expect(allowed(action), action).toEqual(['owner', 'admin']);
    }
  });

  it('members change the graph, create and rename spaces and manage their own keys', () => {
    for (const action of ['editGraph', 'createSpace', 'renameSpace', 'manageOwnKeys'] as const) {
      expect(allowed(action), action).toEqual(['owner', 'admin', 'member']);
    }
  });

  it('viewers change nothing', () => {
    for (const action of [
      'editGraph',
      'createSpace',
      'renameSpace',
      'deleteSpace',
      'manageOwnKeys',
      'manageEveryKey',
      'manageWebhooks',
      'manageMembers',
      'changeBilling',
    ] as const) {
      expect(can('viewer', action), action).toBe(false);
    }
  });

  it('a role not known yet is offered everything: the server decides', () => {
    expect(can(null, 'changeBilling')).toBe(true);
    expect(can(null, 'editGraph')).toBe(true);
  });
});
