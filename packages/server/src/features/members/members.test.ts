import { BILLING_OWNER_ONLY, type Me, type MembersResponse, type Role } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  accountIdOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import { callTool, connectMcp } from '../../test/mcp-client.js';
import { TestSocket } from '../../test/ws-client.js';
import { LAST_OWNER_MESSAGE } from './members.service.js';

const clock = manualClock();
let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
});

type Call = ReturnType<typeof as>;

async function person(fields: Record<string, string> = {}) {
  const { token, user } = await signUp(t.app, fields);
  return { token, user, call: as(t.app, token), accountId: await accountIdOf(t, user.id) };
}

/** An owner on `plan` and their account. */
async function team(plan = 'team') {
  const owner = await person({ firstName: 'Olive', lastName: 'Owner' });
  await setPlan(t, owner.user.id, plan);
  return owner;
}

async function invite(call: Call, email: string, role: Exclude<Role, 'owner'> = 'member') {
  const response = await call({
    method: 'POST',
    url: '/api/members/invitations',
    payload: { email, role },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; url: string; emailed: boolean; expiresAt: string }>();
}

const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

/** A new person who joins `accountId` with `role` through an invitation from `owner`. */
async function joined(owner: { call: Call }, role: Exclude<Role, 'owner'>) {
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const { url } = await invite(owner.call, email, role);
  const colleague = await person({ email, firstName: 'Cole', lastName: role });
  const accepted = await colleague.call({
    method: 'POST',
    url: '/api/invitations/accept',
    payload: { token: tokenOf(url) },
  });
  expect(accepted.statusCode, accepted.body).toBe(200);
  return colleague;
}

/** Calls as `who`, acting in `accountId`. */
function inAccount(who: { call: Call }, accountId: string): Call {
  return (options) =>
    who.call({ ...options, headers: { ...options.headers, 'x-engram-account': accountId } });
}

async function me(call: Call): Promise<Me> {
  const response = await call({ method: 'GET', url: '/auth/me' });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Me>();
}

async function members(call: Call): Promise<MembersResponse> {
  const response = await call({ method: 'GET', url: '/api/members' });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<MembersResponse>();
}

describe('invitations', () => {
  it('invites by email with a single-use link; the invitee signs up, previews, accepts and acts in the account', async () => {
    const owner = await team();
    const email = 'grace.colleague@example.com';
    const created = await invite(owner.call, 'Grace.Colleague@Example.com', 'admin');
    expect(created).toMatchObject({ email, role: 'admin', emailed: false });
    // No PUBLIC_URL: the server's own address (HOST and PORT), never the request's Host.
    expect(created.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/invitations\/accept#token=eng_inv_/);
    expect(new Date(created.expiresAt).getTime() - clock.now().getTime()).toBe(7 * 86_400_000);

    const preview = await t.app.inject({
      method: 'POST',
      url: '/api/invitations/preview',
      payload: { token: tokenOf(created.url) },
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({
      accountName: 'Olive Owner',
      email,
      role: 'admin',
      invitedBy: 'Olive Owner',
    });

    const grace = await person({ email, firstName: 'Grace', lastName: 'Colleague' });
    const accepted = await grace.call({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token: tokenOf(created.url) },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ accountId: owner.accountId, role: 'admin' });

    // Her own account stays the default; the header acts in the other one.
    const own = await me(grace.call);
    expect(own.currentAccountId).toBe(grace.accountId);
    expect(own.accounts).toEqual([
      { id: grace.accountId, name: 'Grace Colleague', role: 'owner' },
      { id: owner.accountId, name: 'Olive Owner', role: 'admin' },
    ]);
    const there = await me(inAccount(grace, owner.accountId));
    expect(there.currentAccountId).toBe(owner.accountId);
    expect(there.apiKey).not.toBe(own.apiKey);

    await owner.call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Shared', type: 'concept' },
    });
    const read = await inAccount(grace, owner.accountId)({ method: 'GET', url: '/api/entities' });
    expect(read.json<{ entities: { name: string }[] }>().entities.map((e) => e.name)).toEqual([
      'Shared',
    ]);
    // Her personal key in that account acts there, with her role.
    const viaKey = await as(t.app, there.apiKey!)({ method: 'GET', url: '/api/entities' });
    expect(viaKey.json<{ entities: unknown[] }>().entities).toHaveLength(1);

    // The invitation is spent and gone from the list.
    const again = await grace.call({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token: tokenOf(created.url) },
    });
    expect(again.statusCode).toBe(404);
    const list = await members(owner.call);
    expect(list.invitations).toEqual([]);
    expect(list.members.map((m) => [m.email, m.role])).toEqual([
      [expect.stringContaining('@example.com'), 'owner'],
      [email, 'admin'],
    ]);
  });

  it('expires after 7 days, and a revoked or replaced link stops working', async () => {
    const owner = await team();
    const expiring = await invite(owner.call, 'late@example.com');
    clock.advanceDays(7);
    const late = await person({ email: 'late@example.com' });
    const expired = await late.call({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token: tokenOf(expiring.url) },
    });
    expect(expired.statusCode).toBe(404);
    expect(expired.json().error).toMatch(/no longer valid/);

    const first = await invite(owner.call, 'late@example.com', 'viewer');
    const second = await invite(owner.call, 'late@example.com', 'member');
    expect(second.id).toBe(first.id);
    const replaced = await late.call({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token: tokenOf(first.url) },
    });
    expect(replaced.statusCode).toBe(404);

    const revoke = await owner.call({
      method: 'DELETE',
      url: `/api/members/invitations/${second.id}`,
    });
    expect(revoke.statusCode).toBe(200);
    const revoked = await late.call({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token: tokenOf(second.url) },
    });
    expect(revoked.statusCode).toBe(404);
    expect((await me(late.call)).accounts).toHaveLength(1);
    const missing = await owner.call({
      method: 'DELETE',
      url: `/api/members/invitations/${second.id}`,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('is accepted only by the person signed in with its email, and two accepts of one link make one member', async () => {
    const owner = await team();
    const { url } = await invite(owner.call, 'right@example.com');
    const stranger = await person();
    const refused = await stranger.call({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token: tokenOf(url) },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(
      'This invitation is for right@example.com: sign in with that email to accept it',
    );
    const right = await person({ email: 'right@example.com' });
    const answers = await Promise.all(
      [1, 2].map(() =>
        right.call({
          method: 'POST',
          url: '/api/invitations/accept',
          payload: { token: tokenOf(url) },
        }),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 404]);
    expect((await members(owner.call)).members).toHaveLength(2);
  });

  it('refuses bad input with the failing field, and forged tokens alike', async () => {
    const owner = await team();
    const badEmail = await owner.call({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: 'not-an-email', role: 'member' },
    });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json().details[0].field).toBe('body.email');
    const owners = await owner.call({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: 'x@example.com', role: 'owner' },
    });
    expect(owners.statusCode).toBe(400);
    expect(owners.json().details[0].field).toBe('body.role');
    for (const token of ['', 'eng_inv_forged', 'x'.repeat(201)]) {
      const preview = await t.app.inject({
        method: 'POST',
        url: '/api/invitations/preview',
        payload: { token },
      });
      expect([400, 404]).toContain(preview.statusCode);
    }
    const self = await owner.call({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: (await me(owner.call)).email, role: 'member' },
    });
    expect(self.statusCode).toBe(409);
  });

  it("counts people and pending invitations against the plan's member limit", async () => {
    const free = await team('free');
    const refused = await free.call({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: 'nobody@example.com', role: 'member' },
    });
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toMatch(/Member limit reached: the Free plan allows 1 person/);

    const pro = await team('pro');
    await joined(pro, 'member');
    for (const n of [1, 2, 3]) await invite(pro.call, `seat${n}@example.com`);
    const full = await pro.call({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: 'seat4@example.com', role: 'member' },
    });
    expect(full.statusCode).toBe(402);
    // Inviting a pending email again replaces its link without taking a seat.
    await invite(pro.call, 'seat1@example.com', 'viewer');
    expect((await members(pro.call)).maxMembers).toBe(5);
  });
});

describe('roles and the account a request acts in', () => {
  it('answers 404 for an account the person does not belong to, and 403 for a key naming another account', async () => {
    const owner = await team();
    const outsider = await person();
    for (const account of [owner.accountId, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const response = await inAccount(outsider, account)({ method: 'GET', url: '/api/entities' });
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toBe('Account not found');
    }
    const key = outsider.user.apiKey;
    const viaKey = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { authorization: `Bearer ${key}`, 'x-engram-account': owner.accountId },
    });
    expect(viaKey.statusCode).toBe(403);
    // A key may name its own account.
    const own = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { authorization: `Bearer ${key}`, 'x-engram-account': outsider.accountId },
    });
    expect(own.statusCode).toBe(200);
  });

  it('a viewer reads but never writes, over REST, MCP and its keys', async () => {
    const owner = await team();
    const viewer = await joined(owner, 'viewer');
    const there = inAccount(viewer, owner.accountId);
    expect((await there({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    const write = await there({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Nope', type: 'concept' },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().error).toMatch(/Viewer/);
    const keys = await there({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } });
    expect(keys.statusCode).toBe(403);

    const personalKey = (await me(there)).apiKey!;
    const client = await connectMcp(base, personalKey);
    try {
      const refused = await client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Nope', entityType: 'concept', observations: [] }] },
      });
      expect(refused.isError).toBe(true);
      const read = await callTool<{ entities: unknown[] }>(client, 'read_graph', {});
      expect(read.entities).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('members see and manage only their own keys; admins every key; only its maker rolls a key', async () => {
    const owner = await team();
    const member = await joined(owner, 'member');
    const admin = await joined(owner, 'admin');
    const asMember = inAccount(member, owner.accountId);
    const asAdmin = inAccount(admin, owner.accountId);
    const mine = await asMember({ method: 'POST', url: '/api/keys', payload: { name: 'mine' } });
    expect(mine.statusCode, mine.body).toBe(201);
    const ownerKey = await owner.call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'owner' },
    });
    const ownerKeyId = ownerKey.json<{ id: string }>().id;

    const memberList = await asMember({ method: 'GET', url: '/api/keys' });
    expect(memberList.json<{ apiKeys: { name: string }[] }>().apiKeys.map((k) => k.name)).toEqual([
      'mine',
    ]);
    expect((await asMember({ method: 'DELETE', url: `/api/keys/${ownerKeyId}` })).statusCode).toBe(
      404,
    );
    const adminList = await asAdmin({ method: 'GET', url: '/api/keys' });
    expect(adminList.json<{ apiKeys: unknown[] }>().apiKeys).toHaveLength(2);

    // Its new secret would act as the member: an admin may not roll it (security/keys-and-invitations.test.ts).
    const mineId = mine.json<{ id: string }>().id;
    expect((await asAdmin({ method: 'POST', url: `/api/keys/${mineId}/roll` })).statusCode).toBe(
      403,
    );
    const rolled = await asMember({ method: 'POST', url: `/api/keys/${mineId}/roll` });
    expect(rolled.statusCode, rolled.body).toBe(200);
    const successor = rolled.json<{ newKey: { apiKey: string } }>().newKey.apiKey;
    const who = await t.runtime.authenticate(successor);
    expect(who).toMatchObject({ userId: member.user.id, role: 'member' });
  });

  it('only owners and admins manage members; admins never touch owners; the last owner stays', async () => {
    const owner = await team();
    const admin = await joined(owner, 'admin');
    const member = await joined(owner, 'member');
    const asAdmin = inAccount(admin, owner.accountId);
    const asMember = inAccount(member, owner.accountId);

    const memberInvites = await asMember({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email: 'a@example.com', role: 'viewer' },
    });
    expect(memberInvites.statusCode).toBe(403);
    expect((await members(asMember)).invitations).toEqual([]);
    expect(
      (
        await asMember({
          method: 'PATCH',
          url: `/api/members/${admin.user.id}`,
          payload: { role: 'viewer' },
        })
      ).statusCode,
    ).toBe(403);

    const demoteOwner = await asAdmin({
      method: 'PATCH',
      url: `/api/members/${owner.user.id}`,
      payload: { role: 'member' },
    });
    expect(demoteOwner.statusCode).toBe(403);
    const makeOwner = await asAdmin({
      method: 'PATCH',
      url: `/api/members/${member.user.id}`,
      payload: { role: 'owner' },
    });
    expect(makeOwner.statusCode).toBe(403);
    const removeOwner = await asAdmin({ method: 'DELETE', url: `/api/members/${owner.user.id}` });
    expect(removeOwner.statusCode).toBe(403);
    const toViewer = await asAdmin({
      method: 'PATCH',
      url: `/api/members/${member.user.id}`,
      payload: { role: 'viewer' },
    });
    expect(toViewer.statusCode, toViewer.body).toBe(200);
    expect(toViewer.json()).toMatchObject({ userId: member.user.id, role: 'viewer' });

    for (const request of [
      {
        method: 'PATCH' as const,
        url: `/api/members/${owner.user.id}`,
        payload: { role: 'admin' },
      },
      { method: 'DELETE' as const, url: `/api/members/${owner.user.id}` },
    ]) {
      const response = await owner.call(request);
      expect(response.statusCode).toBe(409);
      expect(response.json().error).toBe(LAST_OWNER_MESSAGE);
    }
    const missing = await owner.call({
      method: 'PATCH',
      url: '/api/members/00000000-0000-4000-8000-000000000000',
      payload: { role: 'admin' },
    });
    expect(missing.statusCode).toBe(404);
    const badRole = await owner.call({
      method: 'PATCH',
      url: `/api/members/${member.user.id}`,
      payload: { role: 'emperor' },
    });
    expect(badRole.statusCode).toBe(400);
    expect(badRole.json().details[0].field).toBe('body.role');
  });

  it('transfers ownership; the new owner then holds billing, and the old one is an admin', async () => {
    const owner = await team();
    const admin = await joined(owner, 'admin');
    const asAdmin = inAccount(admin, owner.accountId);
    const notOwner = await asAdmin({
      method: 'POST',
      url: '/api/members/transfer-ownership',
      payload: { userId: admin.user.id },
    });
    expect(notOwner.statusCode).toBe(403);

    const billing = await asAdmin({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'pro', priceId: null },
    });
    expect(billing.statusCode).toBe(403);
    expect(billing.json().error).toBe(BILLING_OWNER_ONLY);

    const transfer = await owner.call({
      method: 'POST',
      url: '/api/members/transfer-ownership',
      payload: { userId: admin.user.id },
    });
    expect(transfer.statusCode, transfer.body).toBe(200);
    const roles = Object.fromEntries(
      (await members(owner.call)).members.map((m) => [m.userId, m.role]),
    );
    expect(roles).toEqual({ [owner.user.id]: 'admin', [admin.user.id]: 'owner' });
    const ownerBilling = await owner.call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'pro', priceId: null },
    });
    expect(ownerBilling.statusCode).toBe(403);
    // The old owner can leave now: the account has another owner.
    const leave = await owner.call({ method: 'DELETE', url: `/api/members/${owner.user.id}` });
    expect(leave.statusCode, leave.body).toBe(200);
    // Signed in again, they act in an account of their own.
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: (await me(admin.call)).email, password: 'Password123' },
    });
    expect(login.statusCode).toBe(200);
  });

  it('an owner whose account has other members transfers it before deleting themselves', async () => {
    const owner = await team();
    await joined(owner, 'member');
    const refused = await owner.call({
      method: 'DELETE',
      url: '/auth/me',
      payload: { password: 'Password123' },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatch(/transfer its ownership/);
    expect((await me(owner.call)).accounts).toHaveLength(1);
  });
});

describe('removal', () => {
  it("ends a removed member's access at once: requests, keys, sockets and MCP sessions there", async () => {
    const owner = await team();
    const member = await joined(owner, 'member');
    const there = inAccount(member, owner.accountId);
    const personalKey = (await me(there)).apiKey!;
    const key = (
      await there({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
    ).json<{ apiKey: string }>().apiKey;
    const socket = await TestSocket.open(base, key);
    const personalSocket = await TestSocket.open(base, personalKey);
    const session = await connectMcp(base, personalKey);
    await callTool(session, 'read_graph', {});
    // Their own account is untouched by the removal.
    const ownSocket = await TestSocket.open(base, member.user.apiKey);

    const removed = await owner.call({ method: 'DELETE', url: `/api/members/${member.user.id}` });
    expect(removed.statusCode, removed.body).toBe(200);

    expect((await there({ method: 'GET', url: '/api/entities' })).statusCode).toBe(404);
    for (const credential of [key, personalKey]) {
      const response = await as(t.app, credential)({ method: 'GET', url: '/api/entities' });
      expect(response.statusCode).toBe(401);
    }
    expect(await socket.closedWithin()).not.toBe('still open');
    expect(await personalSocket.closedWithin()).not.toBe('still open');
    await expect(callTool(session, 'read_graph', {})).rejects.toThrow();
    expect(await ownSocket.closedWithin(300)).toBe('still open');
    expect((await member.call({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    expect((await me(member.call)).accounts).toHaveLength(1);
    ownSocket.close();
    await session.close().catch(() => {});
  });

  it('a role change applies to the next request and reopens what was opened with the old role', async () => {
    const owner = await team();
    const member = await joined(owner, 'member');
    const key = (
      await inAccount(
        member,
        owner.accountId,
      )({
        method: 'POST',
        url: '/api/keys',
        payload: { name: 'agent' },
      })
    ).json<{ apiKey: string }>().apiKey;
    const write = () =>
      as(
        t.app,
        key,
      )({
        method: 'POST',
        url: '/api/entities',
        payload: { name: `E${Math.random()}`, type: 'x' },
      });
    expect((await write()).statusCode).toBe(201);
    const socket = await TestSocket.open(base, key);
    await owner.call({
      method: 'PATCH',
      url: `/api/members/${member.user.id}`,
      payload: { role: 'viewer' },
    });
    expect((await write()).statusCode).toBe(403);
    expect(await socket.closedWithin()).not.toBe('still open');
    // Reconnected, the key reads as a viewer.
    const again = await TestSocket.open(base, key);
    expect(await again.closedWithin(300)).toBe('still open');
    again.close();
  });

  it('a socket names its account with ?account=, and a key never reaches another', async () => {
    const owner = await team();
    const other = await person();
    const open = (account: string) =>
      new Promise<{ code: number; reason: string } | 'open'>((resolve) => {
        const url = new URL('/ws/connect', base.replace(/^http/, 'ws'));
        url.searchParams.set('api_key', owner.user.apiKey);
        url.searchParams.set('account', account);
        const ws = new WebSocket(url);
        ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
        ws.on('open', () => setTimeout(() => resolve('open'), 300));
      });
    expect(await open(owner.accountId)).toBe('open');
    const refused = await open(other.accountId);
    expect(refused).toMatchObject({
      code: 1008,
      reason: 'An API key acts only in the account it was made in',
    });
  });
});

describe('activity', () => {
  it("shows each member's last activity in the account", async () => {
    const owner = await team();
    const member = await joined(owner, 'member');
    expect(
      (await members(owner.call)).members.find((m) => m.userId === member.user.id)?.lastActiveAt,
    ).toBeNull();
    await inAccount(member, owner.accountId)({ method: 'GET', url: '/api/entities' });
    const seen = (await members(owner.call)).members.find((m) => m.userId === member.user.id);
    expect(seen?.lastActiveAt).not.toBeNull();
  });
});
