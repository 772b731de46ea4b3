import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROLL_MAKER_ONLY_MESSAGE } from '../features/keys/keys.service.js';
import { accountIdOf, as, createTestApp, setPlan, signUp, type TestApp } from '../test/harness.js';
import { TestSocket } from '../test/ws-client.js';

// Issue 56, items 10–12: a key scoped to a deleted space reached a new space
// of the same slug; an admin could roll the owner's key and act as the owner
// with its new secret; invitation links followed the request's Host and were
// mailed so. One app, with SMTP settings and no PUBLIC_URL.

/** A local mail server that keeps what it is sent. */
const received: string[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    let body = '';
    stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
    stream.on('end', () => {
      received.push(body);
      callback();
    });
  },
});

let t: TestApp;
let base: string;
const sockets: TestSocket[] = [];
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  t = await createTestApp({
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    SMTP_FROM: 'Engram <engram@example.com>',
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});

type Call = ReturnType<typeof as>;
interface Key {
  id: string;
  apiKey: string;
  name: string;
  permissions: string[];
}

async function owner() {
  const { token, user } = await signUp(t.app, { firstName: 'Olive', lastName: 'Owner' });
  await setPlan(t, user.id, 'team');
  return { user, call: as(t.app, token), accountId: await accountIdOf(t, user.id) };
}

async function createKey(call: Call, name: string, permissions: string[] = []): Promise<Key> {
  const created = await call({ method: 'POST', url: '/api/keys', payload: { name, permissions } });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<Key>();
}

async function invite(call: Call, email: string, role: 'admin' | 'member', host?: string) {
  const response = await call({
    method: 'POST',
    url: '/api/members/invitations',
    payload: { email, role },
    ...(host ? { headers: { host } } : {}),
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ url: string; emailed: boolean }>();
}

/** A new person who joins the owner's account with `role`; their calls act there. */
async function joined(team: { call: Call; accountId: string }, role: 'admin' | 'member') {
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const { url } = await invite(team.call, email, role);
  const { token, user } = await signUp(t.app, { email, firstName: 'Cole', lastName: role });
  const accepted = await as(
    t.app,
    token,
  )({
    method: 'POST',
    url: '/api/invitations/accept',
    payload: { token: new URL(url).hash.replace('#token=', '') },
  });
  expect(accepted.statusCode, accepted.body).toBe(200);
  const call: Call = (options) =>
    as(
      t.app,
      token,
    )({ ...options, headers: { ...options.headers, 'x-engram-account': team.accountId } });
  return { user, call };
}

describe('item 10: a key scoped to a deleted space does not outlive it', () => {
  it('is deleted with the space, its socket ends, and a new space of the same slug is not its', async () => {
    const { call } = await owner();
    const made = await call({
      method: 'POST',
      url: '/api/spaces',
      payload: { name: 'User 123', slug: 'user-123' },
    });
    expect(made.statusCode, made.body).toBe(201);
    const scoped = await createKey(call, 'scoped', ['space:user-123:write']);
    const mixed = await createKey(call, 'mixed', ['spaces:*:read', 'space:user-123:write']);
    const other = await createKey(call, 'other', ['space:other:write']);
    const full = await createKey(call, 'full');
    const inUser123 =
      (key: Key): Call =>
      (options) =>
        as(
          t.app,
          key.apiKey,
        )({ ...options, headers: { ...options.headers, 'x-engram-space': 'user-123' } });
    // Used once, so this node holds the key's row in its cache.
    expect((await inUser123(scoped)({ method: 'GET', url: '/api/entities' })).statusCode).toBe(200);
    const socket = await TestSocket.open(base, scoped.apiKey, {}, 'user-123');
    sockets.push(socket);
    socket.send('ping');
    await socket.next((m) => m.type === 'pong');

    expect((await call({ method: 'DELETE', url: '/api/spaces/user-123' })).statusCode).toBe(200);
    expect(await socket.closedWithin()).toMatchObject({ code: 4401 });
    // Purged: the slug is free again, and someone makes a new space with it.
    await t.runtime.accounts.purge.idle();
    t.runtime.accounts.purge.kick();
    await t.runtime.accounts.purge.idle();
    const again = await call({
      method: 'POST',
      url: '/api/spaces',
      payload: { name: 'Another user 123', slug: 'user-123' },
    });
    expect(again.statusCode, again.body).toBe(201);

    const write = {
      method: 'POST' as const,
      url: '/api/entities',
      payload: { name: 'x', type: 'y' },
    };
    expect((await inUser123(scoped)(write)).statusCode).toBe(401);
    expect((await inUser123(mixed)(write)).statusCode).toBe(401);
    // Never a key left with an emptied list (full access): the others are as they were.
    const listed = (await call({ method: 'GET', url: '/api/keys' })).json<{ apiKeys: Key[] }>();
    expect(listed.apiKeys.map((key) => [key.name, key.permissions])).toEqual([
      ['full', []],
      ['other', ['space:other:write']],
    ]);
    expect([other.id, full.id]).toEqual([...listed.apiKeys].reverse().map((key) => key.id));
  });
});

describe('item 11: only a key’s maker rolls it', () => {
  it('refuses an admin’s roll of the owner’s key (403), and still lets them list and delete it', async () => {
    const team = await owner();
    const admin = await joined(team, 'admin');
    const ownerKey = await createKey(team.call, 'owner agent');

    const roll = await admin.call({ method: 'POST', url: `/api/keys/${ownerKey.id}/roll` });
    expect(roll.statusCode).toBe(403);
    expect(roll.json()).toMatchObject({ code: 'FORBIDDEN', error: ROLL_MAKER_ONLY_MESSAGE });
    expect(roll.body).not.toContain('eng_key_');
    // Nothing was issued: the owner's key is alone, unrolled.
    const listed = (await admin.call({ method: 'GET', url: '/api/keys' })).json<{
      apiKeys: (Key & { replacedById: string | null; createdBy: { id: string } })[];
    }>().apiKeys;
    expect(listed).toEqual([
      expect.objectContaining({
        id: ownerKey.id,
        replacedById: null,
        createdBy: expect.objectContaining({ id: team.user.id }),
      }),
    ]);

    // The admin's own key they roll; the owner rolls theirs.
    const adminKey = await createKey(admin.call, 'admin agent');
    expect(
      (await admin.call({ method: 'POST', url: `/api/keys/${adminKey.id}/roll` })).statusCode,
    ).toBe(200);
    const ownerRoll = await team.call({ method: 'POST', url: `/api/keys/${ownerKey.id}/roll` });
    expect(ownerRoll.statusCode, ownerRoll.body).toBe(200);

    // Deleting every key stays an admin's.
    const successor = ownerRoll.json<{ newKey: Key }>().newKey;
    expect(
      (await admin.call({ method: 'DELETE', url: `/api/keys/${successor.id}` })).statusCode,
    ).toBe(200);
  });

  it('refuses an owner’s roll of an admin’s key too, and a member never sees another’s key (404)', async () => {
    const team = await owner();
    const admin = await joined(team, 'admin');
    const member = await joined(team, 'member');
    const adminKey = await createKey(admin.call, 'admin agent');

    const byOwner = await team.call({ method: 'POST', url: `/api/keys/${adminKey.id}/roll` });
    expect(byOwner.statusCode).toBe(403);
    expect(byOwner.json().error).toBe(ROLL_MAKER_ONLY_MESSAGE);
    const byMember = await member.call({ method: 'POST', url: `/api/keys/${adminKey.id}/roll` });
    expect(byMember.statusCode).toBe(404);
  });
});

describe('item 12: invitation links never come from a request header', () => {
  it('without PUBLIC_URL, builds the link on the server’s own origin and mails nothing', async () => {
    const { call } = await owner();
    const created = await invite(call, 'invitee@example.com', 'member', 'evil.example');
    expect(created.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/invitations\/accept#token=eng_inv_/);
    expect(created.url).not.toContain('evil.example');
    expect(created.emailed).toBe(false);
    expect(received).toEqual([]);
  });
});
