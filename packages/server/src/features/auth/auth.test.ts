import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../lib/secrets.js';
import { expectError, expectValidationError, UUID_RE } from '../../test/http-assertions.js';
import { as, createTestApp, type TestApp } from '../../test/harness.js';

/** Sessions last SESSION_TTL_DAYS; this file's app uses a non-default value to see it applied. */
const TTL_DAYS = 7;

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ SESSION_TTL_DAYS: String(TTL_DAYS) });
});

afterAll(async () => {
  await t?.close();
});

const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`;

const PASSWORD = 'Password123';

interface AuthBody {
  token: string;
  user: { id: string; email: string; firstName: string; lastName: string; apiKey: string | null };
}

async function register(fields: Partial<Record<string, unknown>> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/auth/register',
    payload: {
      email: uniqueEmail('user'),
      password: PASSWORD,
      firstName: 'Ada',
      lastName: 'Lovelace',
      ...fields,
    },
  });
}

async function registered(fields: Partial<Record<string, unknown>> = {}): Promise<AuthBody> {
  const response = await register(fields);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<AuthBody>();
}

async function login(email: string, password: string) {
  return t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
}

async function me(token: string) {
  return as(t.app, token)({ method: 'GET', url: '/auth/me' });
}

async function sessionRowOf(token: string) {
  return t.database.db
    .selectFrom('sessions')
    .select(['id', 'user_id', 'expires_at', 'created_at'])
    .where('token_hash', '=', hashSecret(token))
    .executeTakeFirst();
}

describe('POST /auth/register', () => {
  it('creates the user and returns 201 with a working token and the profile', async () => {
    const email = uniqueEmail('reg');
    const response = await register({ email, firstName: 'Grace', lastName: 'Hopper' });
    expect(response.statusCode).toBe(201);
    const body = response.json<AuthBody>();
    expect(Object.keys(body).sort()).toEqual(['token', 'user']);
    expect(body.token).toEqual(expect.any(String));
    expect(body.token.length).toBeGreaterThanOrEqual(32);
    expect(body.user).toEqual({
      id: expect.stringMatching(UUID_RE),
      email,
      firstName: 'Grace',
      lastName: 'Hopper',
      apiKey: expect.any(String),
    });
    expect(body.user.apiKey!.length).toBeGreaterThanOrEqual(32);

    const profile = await me(body.token);
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toEqual({
      ...body.user,
      accounts: [{ id: expect.any(String), name: 'Grace Hopper', role: 'owner' }],
      currentAccountId: expect.any(String),
    });
  });

  it('trims and lower-cases the email and trims the names', async () => {
    const local = `MiXeD-${randomUUID().slice(0, 8)}`;
    const body = await registered({
      email: `  ${local}@Example.COM  `,
      firstName: '  Ada ',
      lastName: ' Byron  ',
    });
    expect(body.user.email).toBe(`${local.toLowerCase()}@example.com`);
    expect(body.user.firstName).toBe('Ada');
    expect(body.user.lastName).toBe('Byron');

    const again = await login(`${local.toLowerCase()}@example.com`, PASSWORD);
    expect(again.statusCode).toBe(200);
    expect(again.json<AuthBody>().user.id).toBe(body.user.id);
  });

  it('refuses a second account with the same email, whatever its case or spacing (409)', async () => {
    const email = uniqueEmail('dup');
    const first = await registered({ email });
    const second = await register({ email: `  ${email.toUpperCase()} `, password: 'Another123' });
    const body = expectError(second, 409, 'CONFLICT');
    expect(body.error).toBe('An account with this email already exists');

    // The first account is untouched: its password still works, the second one does not.
    expect((await login(email, PASSWORD)).json<AuthBody>().user.id).toBe(first.user.id);
    expectError(await login(email, 'Another123'), 401, 'UNAUTHORIZED');
  });

  it('requires a password of at least 8 characters (7 → 400, 8 → 201)', async () => {
    const short = await register({ password: 'Abcdef1' });
    const body = expectValidationError(short, ['body.password']);
    expect(body.details![0]!.message).toBe('Password must be at least 8 characters long');

    const exact = await register({ password: 'Abcdef12' });
    expect(exact.statusCode).toBe(201);
  });

  it('rejects a password longer than 256 characters', async () => {
    expectValidationError(await register({ password: 'p'.repeat(257) }), ['body.password']);
  });

  it('names every missing field', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/register', payload: {} });
    expectValidationError(response, [
      'body.email',
      'body.password',
      'body.firstName',
      'body.lastName',
    ]);
  });

  it.each([
    ['an invalid email', { email: 'not-an-email' }, 'body.email'],
    ['a blank email', { email: '   ' }, 'body.email'],
    ['a blank first name', { firstName: '   ' }, 'body.firstName'],
    ['a blank last name', { lastName: '' }, 'body.lastName'],
    ['a numeric first name', { firstName: 42 }, 'body.firstName'],
    ['a null password', { password: null }, 'body.password'],
    ['a first name over 100 characters', { firstName: 'x'.repeat(101) }, 'body.firstName'],
  ])('rejects %s with 400 naming the field', async (_label, fields, field) => {
    expectValidationError(await register(fields), [field]);
  });

  it('creates no account when validation fails', async () => {
    const email = uniqueEmail('invalid');
    expectValidationError(await register({ email, password: 'short' }), ['body.password']);
    expectError(await login(email, 'short'), 401, 'UNAUTHORIZED');
    const row = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('starts a session that expires SESSION_TTL_DAYS after sign-up', async () => {
    const body = await registered();
    const session = await sessionRowOf(body.token);
    expect(session).toBeDefined();
    expect(session!.user_id).toBe(body.user.id);
    const lifetimeMs = session!.expires_at.getTime() - session!.created_at.getTime();
    // Within a minute of exactly TTL_DAYS (created_at and the expiry come from two clocks).
    expect(Math.abs(lifetimeMs - TTL_DAYS * 86_400_000)).toBeLessThan(60_000);
  });
});

describe('POST /auth/login', () => {
  it('returns 200 with a new token and the user; both tokens work', async () => {
    const signup = await registered({ firstName: 'Alan', lastName: 'Turing' });
    const response = await login(signup.user.email, PASSWORD);
    expect(response.statusCode).toBe(200);
    const body = response.json<AuthBody>();
    expect(Object.keys(body).sort()).toEqual(['token', 'user']);
    expect(body.user).toEqual(signup.user);
    expect(body.token).not.toBe(signup.token);
    expect((await me(body.token)).statusCode).toBe(200);
    expect((await me(signup.token)).statusCode).toBe(200);
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const signup = await registered();
    const response = await login(`  ${signup.user.email.toUpperCase()}  `, PASSWORD);
    expect(response.statusCode).toBe(200);
    expect(response.json<AuthBody>().user.id).toBe(signup.user.id);
  });

  it('gives the same 401 body for a wrong password and an unknown email', async () => {
    const signup = await registered();
    const wrongPassword = await login(signup.user.email, 'WrongPassword1');
    const unknownEmail = await login(uniqueEmail('nobody'), PASSWORD);
    const a = expectError(wrongPassword, 401, 'UNAUTHORIZED');
    const b = expectError(unknownEmail, 401, 'UNAUTHORIZED');
    expect(a).toEqual(b);
    expect(a.details).toBeUndefined();
  });

  it('is case-sensitive on the password', async () => {
    const signup = await registered();
    expectError(await login(signup.user.email, PASSWORD.toLowerCase()), 401, 'UNAUTHORIZED');
  });

  it('names missing fields with 400', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/login', payload: {} });
    expectValidationError(response, ['body.email', 'body.password']);
    const blank = await login('someone@example.com', '');
    expectValidationError(blank, ['body.password']);
  });
});

describe('GET /auth/me', () => {
  it('the personal apiKey works on the graph routes but not on /auth/me', async () => {
    const signup = await registered();
    const graph = await t.app.inject({
      method: 'GET',
      url: '/api/entities',
      headers: { 'x-api-key': signup.user.apiKey! },
    });
    expect(graph.statusCode).toBe(200);
    const me = await t.app.inject({
      method: 'GET',
      url: '/auth/me',
      headers: { 'x-api-key': signup.user.apiKey! },
    });
    expect(me.statusCode).toBe(401);
  });

  it('returns exactly {id, email, firstName, lastName, apiKey, accounts, currentAccountId}', async () => {
    const signup = await registered({ firstName: 'Katherine', lastName: 'Johnson' });
    const response = await me(signup.token);
    expect(response.statusCode).toBe(200);
    const body = response.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual([
      'accounts',
      'apiKey',
      'currentAccountId',
      'email',
      'firstName',
      'id',
      'lastName',
    ]);
    const { accounts, currentAccountId, ...user } = body;
    expect(user).toEqual(signup.user);
    expect(accounts).toEqual([{ id: currentAccountId, name: 'Katherine Johnson', role: 'owner' }]);
  });

  it.each([
    ['no authorization header', undefined],
    ['an unknown token', 'Bearer eng_sess_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a token without the session prefix', 'Bearer not-a-token'],
    ['a Basic credential', 'Basic dXNlcjpwYXNzd29yZA=='],
    ['the bare word Bearer', 'Bearer'],
    ['an over-long token', `Bearer ${'x'.repeat(600)}`],
  ])('answers 401 UNAUTHORIZED with %s', async (_label, authorization) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/auth/me',
      headers: authorization === undefined ? {} : { authorization },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });

  it('answers 401 for a real token with a character changed', async () => {
    const signup = await registered();
    const last = signup.token.at(-1) === 'A' ? 'B' : 'A';
    const tampered = signup.token.slice(0, -1) + last;
    expectError(await me(tampered), 401, 'UNAUTHORIZED');
  });
});

describe('POST /auth/logout', () => {
  it('ends only the current session', async () => {
    const signup = await registered();
    const other = (await login(signup.user.email, PASSWORD)).json<AuthBody>();

    const response = await as(t.app, signup.token)({ method: 'POST', url: '/auth/logout' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true });

    expectError(await me(signup.token), 401, 'UNAUTHORIZED');
    expectError(
      await as(t.app, signup.token)({ method: 'GET', url: '/api/entities' }),
      401,
      'UNAUTHORIZED',
    );
    // Logging out twice with the ended token is a 401, not a 500.
    expectError(
      await as(t.app, signup.token)({ method: 'POST', url: '/auth/logout' }),
      401,
      'UNAUTHORIZED',
    );
    expect((await me(other.token)).statusCode).toBe(200);
    expect(await sessionRowOf(signup.token)).toBeUndefined();
  });

  it('without a token is 401', async () => {
    expectError(await t.app.inject({ method: 'POST', url: '/auth/logout' }), 401, 'UNAUTHORIZED');
  });

  // The web app marks every request as JSON (docs/product.md, Calls) — so the SPA's logout
  // arrives with `content-type: application/json` and no body.
  it('accepts a JSON content type with an empty body (the SPA sends one on every call)', async () => {
    const signup = await registered();
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { authorization: `Bearer ${signup.token}`, 'content-type': 'application/json' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expectError(await me(signup.token), 401, 'UNAUTHORIZED');
  });
});

describe('PUT /auth/me', () => {
  it('updates and trims first and last name; the email stays', async () => {
    const signup = await registered();
    const response = await as(
      t.app,
      signup.token,
    )({
      method: 'PUT',
      url: '/auth/me',
      payload: { firstName: '  Mary ', lastName: ' Jackson ', email: 'ignored@example.com' },
    });
    expect(response.statusCode).toBe(200);
    const expected = { ...signup.user, firstName: 'Mary', lastName: 'Jackson' };
    expect(response.json()).toEqual(expected);
    expect((await me(signup.token)).json()).toMatchObject(expected);
    // Login still returns the updated profile.
    expect((await login(signup.user.email, PASSWORD)).json<AuthBody>().user).toEqual(expected);
  });

  it('names blank, missing and wrongly typed fields with 400 and changes nothing', async () => {
    const signup = await registered({ firstName: 'Dorothy', lastName: 'Vaughan' });
    const req = as(t.app, signup.token);
    expectValidationError(
      await req({ method: 'PUT', url: '/auth/me', payload: { firstName: '   ', lastName: 'X' } }),
      ['body.firstName'],
    );
    expectValidationError(
      await req({ method: 'PUT', url: '/auth/me', payload: { firstName: 'X' } }),
      ['body.lastName'],
    );
    expectValidationError(
      await req({ method: 'PUT', url: '/auth/me', payload: { firstName: ['X'], lastName: 7 } }),
      ['body.firstName', 'body.lastName'],
    );
    expect((await me(signup.token)).json()).toMatchObject(signup.user);
  });

  it('without a token is 401', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/auth/me',
      payload: { firstName: 'A', lastName: 'B' },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});

describe('POST /auth/password', () => {
  it('changes the password, keeps this session and ends the others', async () => {
    const signup = await registered();
    const other = (await login(signup.user.email, PASSWORD)).json<AuthBody>();
    const third = (await login(signup.user.email, PASSWORD)).json<AuthBody>();

    const response = await as(
      t.app,
      signup.token,
    )({
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: PASSWORD, newPassword: 'BrandNew456' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true });

    expect((await me(signup.token)).statusCode).toBe(200);
    expectError(await me(other.token), 401, 'UNAUTHORIZED');
    expectError(await me(third.token), 401, 'UNAUTHORIZED');

    expectError(await login(signup.user.email, PASSWORD), 401, 'UNAUTHORIZED');
    expect((await login(signup.user.email, 'BrandNew456')).statusCode).toBe(200);
  });

  it('leaves other users’ sessions alone', async () => {
    const changer = await registered();
    const bystander = await registered();
    const response = await as(
      t.app,
      changer.token,
    )({
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: PASSWORD, newPassword: 'Changed789' },
    });
    expect(response.statusCode).toBe(200);
    expect((await me(bystander.token)).statusCode).toBe(200);
  });

  it('refuses a wrong current password with 400 naming currentPassword; nothing changes', async () => {
    const signup = await registered();
    const other = (await login(signup.user.email, PASSWORD)).json<AuthBody>();
    const response = await as(
      t.app,
      signup.token,
    )({
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: 'NotMyPassword1', newPassword: 'BrandNew456' },
    });
    const body = expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.details!.map((detail) => detail.field.replace(/^body\./, ''))).toEqual([
      'currentPassword',
    ]);
    expect((await me(other.token)).statusCode).toBe(200);
    expect((await login(signup.user.email, PASSWORD)).statusCode).toBe(200);
    expectError(await login(signup.user.email, 'BrandNew456'), 401, 'UNAUTHORIZED');
  });

  it('requires the new password to have at least 8 characters', async () => {
    const signup = await registered();
    const response = await as(
      t.app,
      signup.token,
    )({
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: PASSWORD, newPassword: 'short' },
    });
    expectValidationError(response, ['body.newPassword']);
    expect((await login(signup.user.email, PASSWORD)).statusCode).toBe(200);
  });

  it('names both missing fields', async () => {
    const signup = await registered();
    const response = await as(
      t.app,
      signup.token,
    )({
      method: 'POST',
      url: '/auth/password',
      payload: {},
    });
    expectValidationError(response, ['body.currentPassword', 'body.newPassword']);
  });

  it('without a token is 401 (before validation)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/password',
      payload: { currentPassword: 1 },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});

describe('session expiry', () => {
  it('an expired session is 401 everywhere; a live one of the same user still works', async () => {
    const signup = await registered();
    const other = (await login(signup.user.email, PASSWORD)).json<AuthBody>();
    const session = await sessionRowOf(signup.token);
    await t.database.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', session!.id)
      .execute();

    const req = as(t.app, signup.token);
    expectError(await me(signup.token), 401, 'UNAUTHORIZED');
    expectError(await req({ method: 'GET', url: '/api/entities' }), 401, 'UNAUTHORIZED');
    expectError(
      await req({ method: 'POST', url: '/api/entities', payload: { name: 'x', type: 'y' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await req({ method: 'PUT', url: '/auth/me', payload: { firstName: 'A', lastName: 'B' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await req({ method: 'POST', url: '/auth/logout' }), 401, 'UNAUTHORIZED');

    expect((await me(other.token)).statusCode).toBe(200);
  });

  it('a session still in the future works', async () => {
    const signup = await registered();
    const session = await sessionRowOf(signup.token);
    await t.database.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() + 60_000) })
      .where('id', '=', session!.id)
      .execute();
    expect((await me(signup.token)).statusCode).toBe(200);
  });
});
