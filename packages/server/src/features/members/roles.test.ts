import type { InjectOptions } from 'fastify';
import type { Role } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';

/**
 * Every role against every route family (docs/product.md, Members): what
 * each may do in an account it belongs to. One account on the top plan, one
 * person per role; each row is asked by all four, in the account's header.
 */
let t: TestApp;
let accountId: string;
const tokens = {} as Record<Role, string>;
const ids = {} as Record<Role, string>;

beforeAll(async () => {
  t = await createTestApp();
  const owner = await signUp(t.app, { firstName: 'Olive', lastName: 'Owner' });
  await setPlan(t, owner.user.id, 'team');
  accountId = await accountIdOf(t, owner.user.id);
  tokens.owner = owner.token;
  ids.owner = owner.user.id;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const email = `${role}-${accountId.slice(0, 8)}@example.com`;
    const invited = await as(
      t.app,
      owner.token,
    )({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email, role },
    });
    const token = new URL(invited.json<{ url: string }>().url).hash.replace('#token=', '');
    const person = await signUp(t.app, { email });
    const accepted = await as(
      t.app,
      person.token,
    )({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    tokens[role] = person.token;
    ids[role] = person.user.id;
  }
  // Something to read, and a space per role to delete.
  await call('owner', {
    method: 'POST',
    url: '/api/entities',
    payload: { name: 'Ada', type: 'person' },
  });
  for (const role of ROLES_IN_ORDER) {
    await call('owner', {
      method: 'POST',
      url: '/api/spaces',
      payload: { name: `Doomed ${role}` },
    });
  }
});
afterAll(async () => {
  await t.close();
});

const ROLES_IN_ORDER = ['owner', 'admin', 'member', 'viewer'] as const;

function call(role: Role, options: InjectOptions) {
  return as(
    t.app,
    tokens[role],
  )({
    ...options,
    headers: { ...options.headers, 'x-engram-account': accountId },
  });
}

type Expected = [owner: number, admin: number, member: number, viewer: number];

/** Each route family: the request a role makes, and the status each role gets, owner first. */
const TABLE: { family: string; request: (role: Role) => InjectOptions; expected: Expected }[] = [
  {
    family: 'graph reads',
    request: () => ({ method: 'GET', url: '/api/entities' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'graph writes',
    request: (role) => ({
      method: 'POST',
      url: '/api/entities',
      payload: { name: `Made by ${role}`, type: 'concept' },
    }),
    expected: [201, 201, 201, 403],
  },
  {
    family: 'relations',
    request: () => ({ method: 'GET', url: '/api/relations' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'recall',
    request: () => ({ method: 'GET', url: '/api/recall?q=who%20is%20Ada' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'history',
    request: () => ({ method: 'GET', url: '/api/changes' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'analytics',
    request: () => ({ method: 'GET', url: '/api/analytics' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'export',
    request: () => ({ method: 'GET', url: '/api/export' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'spaces: list',
    request: () => ({ method: 'GET', url: '/api/spaces' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'spaces: create',
    request: (role) => ({ method: 'POST', url: '/api/spaces', payload: { name: `By ${role}` } }),
    expected: [201, 201, 201, 403],
  },
  {
    family: 'spaces: delete',
    request: (role) => ({ method: 'DELETE', url: `/api/spaces/doomed-${role}` }),
    expected: [200, 200, 403, 403],
  },
  {
    family: 'API keys: list',
    request: () => ({ method: 'GET', url: '/api/keys' }),
    expected: [200, 200, 200, 403],
  },
  {
    family: 'API keys: create',
    request: (role) => ({ method: 'POST', url: '/api/keys', payload: { name: `${role} agent` } }),
    expected: [201, 201, 201, 403],
  },
  {
    family: 'webhooks',
    request: () => ({ method: 'GET', url: '/api/webhooks' }),
    expected: [200, 200, 403, 403],
  },
  {
    family: 'billing: read',
    request: () => ({ method: 'GET', url: '/api/billing/subscription' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'billing: change',
    // The plan in force chosen again: a no-op for the owner, refused to everyone else.
    request: () => ({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'team', priceId: 'price_team_monthly' },
    }),
    expected: [200, 403, 403, 403],
  },
  {
    family: 'members: list',
    request: () => ({ method: 'GET', url: '/api/members' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'members: invite',
    request: (role) => ({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: `from-${role}@example.com`, role: 'viewer' },
    }),
    expected: [201, 201, 403, 403],
  },
  {
    family: 'members: change a role',
    // Everyone asks to make the viewer a viewer again: allowed (and a no-op) for managers.
    request: () => ({
      method: 'PATCH',
      url: `/api/members/${ids.viewer}`,
      payload: { role: 'viewer' },
    }),
    expected: [200, 200, 403, 403],
  },
  {
    family: 'members: transfer ownership',
    // To the owner themselves: the owner gets past the role check to a 409.
    request: () => ({
      method: 'POST',
      url: '/api/members/transfer-ownership',
      payload: { userId: ids.owner },
    }),
    expected: [409, 403, 403, 403],
  },
  {
    family: 'connected apps',
    request: () => ({ method: 'GET', url: '/api/oauth/grants' }),
    expected: [200, 200, 200, 200],
  },
  {
    family: 'profile',
    request: () => ({ method: 'GET', url: '/auth/me' }),
    expected: [200, 200, 200, 200],
  },
];

describe('every role against every route family', () => {
  it.each(TABLE)('$family', async ({ request, expected }) => {
    const got: number[] = [];
    for (const role of ROLES_IN_ORDER) got.push((await call(role, request(role))).statusCode);
    expect(got).toEqual(expected);
  });

  it('an API key acts with its maker’s role', async () => {
    const keys = {} as Record<Role, string>;
    for (const role of ['owner', 'admin', 'member'] as const) {
      const created = await call(role, {
        method: 'POST',
        url: '/api/keys',
        payload: { name: `${role} key` },
      });
      keys[role] = created.json<{ apiKey: string }>().apiKey;
    }
    const viewerKey = (await call('viewer', { method: 'GET', url: '/auth/me' })).json<{
      apiKey: string;
    }>().apiKey;
    keys.viewer = viewerKey;
    const writes: number[] = [];
    const hooks: number[] = [];
    for (const role of ROLES_IN_ORDER) {
      const key = as(t.app, keys[role]);
      writes.push(
        (
          await key({
            method: 'POST',
            url: '/api/entities',
            payload: { name: `Key of ${role}`, type: 'concept' },
          })
        ).statusCode,
      );
      hooks.push((await key({ method: 'GET', url: '/api/webhooks' })).statusCode);
    }
    expect(writes).toEqual([201, 201, 201, 403]);
    expect(hooks).toEqual([200, 200, 403, 403]);
  });
});
