import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZE_PARAM_MAX } from '../features/oauth/oauth.routes.js';
import {
  answerConsent,
  pkce,
  startOAuthServer,
  TestBrowser,
  tokenRequest,
  type OAuthTestServer,
} from '../test/oauth.js';
import { localOrigin } from '../lib/local-origin.js';
import { as, createTestApp, setPlan, signUp } from '../test/harness.js';
import { INITIALIZE, postMcp } from '../test/mcp-client.js';

/**
 * Issue 56 (Hardening III), the OAuth items 3, 4, 5, 7, 8, 9 and 15, and
 * issue 58's items 1, 3 and 4 (one origin; OAuth errors on Engram's page).
 * docs/security.md, OAuth; docs/connect.md.
 */

const REDIRECT = 'http://127.0.0.1:9/callback';

let t: OAuthTestServer;
let session: string;
let client: string;
/** Each registration from an address of its own: registration allows 10 per address per hour. */
let registrations = 0;

async function register(body: Record<string, unknown>) {
  registrations += 1;
  const response = await t.app.inject({
    method: 'POST',
    url: '/oauth/register',
    remoteAddress: `198.51.100.${registrations}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      client_name: 'Hardening Test',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...body,
    }),
  });
  return { status: response.statusCode, body: response.json<Record<string, unknown>>() };
}

async function registered(redirectUris = [REDIRECT]): Promise<string> {
  const { status, body } = await register({ redirect_uris: redirectUris });
  expect(status).toBe(201);
  return body['client_id'] as string;
}

/** An authorization URL: valid unless `params` spoils it (`undefined` drops one). */
function authorizeUrl(params: Record<string, string | undefined>, clientId = client): URL {
  const url = new URL('/oauth/authorize', t.base);
  const all = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'memory:read memory:write',
    resource: `${t.base}/mcp`,
    state: 'st4te',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}

/** Where a browser ends: the consent screen, Engram's error page, or off Engram. */
async function land(url: URL, browser = new TestBrowser()) {
  const { url: landed, response } = await browser.follow(url.href, t.base);
  return { landed, response, browser };
}

async function interactionRows(): Promise<number> {
  const row = await t.database.db
    .selectFrom('oauth_models')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('kind', '=', 'Interaction')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

beforeAll(async () => {
  // TRUST_PROXY: X-Forwarded-Host would be believed if anything still read it.
  t = await startOAuthServer({ OAUTH_RATE_LIMIT_PER_MINUTE: '10000', TRUST_PROXY: 'true' });
  session = (await signUp(t.app)).token;
  client = await registered();
});
afterAll(async () => {
  await t.close();
});

describe('item 3: /oauth/authorize cannot grow the database without bound', () => {
  it('refuses a parameter over 2,048 characters on the error page, and stores nothing', async () => {
    const before = await interactionRows();
    for (const params of [
      { state: 'x'.repeat(AUTHORIZE_PARAM_MAX + 1) },
      { nonce: 'x'.repeat(15_000) },
      { ['x'.repeat(AUTHORIZE_PARAM_MAX + 1)]: '1' },
    ]) {
      const { landed, response } = await land(authorizeUrl(params));
      expect(response.status).toBe(303);
      expect(`${landed.pathname}${landed.search}`).toBe('/oauth/error?error=invalid_request');
    }
    expect(await interactionRows()).toBe(before);
    // 2,048 is still fine.
    const { landed } = await land(authorizeUrl({ state: 'x'.repeat(AUTHORIZE_PARAM_MAX) }));
    expect(landed.pathname).toBe('/oauth/consent');
  });

  it('limits authorize, token and revoke per client address (429 with Retry-After)', async () => {
    const limited = await createTestApp({ OAUTH_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      for (const [method, url] of [
        ['GET', '/oauth/authorize?client_id=nobody'],
        ['POST', '/oauth/token'],
        ['POST', '/oauth/revoke'],
      ] as const) {
        const call = (remoteAddress: string) =>
          limited.app.inject({
            method,
            url,
            remoteAddress,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            ...(method === 'POST' ? { payload: 'token=x&client_id=nobody' } : {}),
          });
        for (let i = 0; i < 3; i++) expect((await call('203.0.113.7')).statusCode).not.toBe(429);
        const refused = await call('203.0.113.7');
        expect(refused.statusCode, url).toBe(429);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        // Another address has its own budget.
        expect((await call('203.0.113.8')).statusCode, url).not.toBe(429);
      }
    } finally {
      await limited.close();
    }
  });

  it('removes every expired record in one cleanup run, in batches of 5,000', async () => {
    const db = t.database.db;
    await sql`
      insert into oauth_models (kind, id, payload, expires_at)
      select 'Interaction', 'expired-' || n, '{}', now() - interval '1 hour'
      from generate_series(1, 12001) as n`.execute(db);
    await sql`
      insert into oauth_models (kind, id, payload, expires_at)
      values ('Interaction', 'still-live', '{}', now() + interval '1 hour')`.execute(db);
    const removed = await t.runtime.oauth.removeExpiredRecords();
    expect(removed).toBeGreaterThanOrEqual(12_001);
    const left = await db
      .selectFrom('oauth_models')
      .select('id')
      .where('expires_at', '<=', new Date())
      .execute();
    expect(left).toEqual([]);
    const live = await db
      .selectFrom('oauth_models')
      .select('id')
      .where('id', '=', 'still-live')
      .execute();
    expect(live).toHaveLength(1);
  });
});

describe('item 4 and issue 58 item 1: metadata names one origin, never a request header', () => {
  const spoofed = { host: 'evil.example', 'x-forwarded-host': 'evil.example' };

  it('builds authorization server metadata from the issuer alone, and no cache keeps it', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const response = await t.app.inject({ method: 'GET', url: path, headers: spoofed });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toContain('no-store');
      const metadata = response.json<Record<string, unknown>>();
      expect(metadata['issuer']).toBe(t.base);
      for (const key of [
        'authorization_endpoint',
        'token_endpoint',
        'registration_endpoint',
        'revocation_endpoint',
        'jwks_uri',
      ]) {
        expect(String(metadata[key]), key).toMatch(new RegExp(`^${t.base}/oauth/`));
      }
      expect(JSON.stringify(metadata)).not.toContain('evil.example');
    }
  });

  it('builds protected resource metadata from PUBLIC_URL, and no cache keeps it', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp/alpha',
    ]) {
      const response = await t.app.inject({ method: 'GET', url: path, headers: spoofed });
      expect(response.headers['cache-control'], path).toContain('no-store');
      const metadata = response.json<{ resource: string; authorization_servers: string[] }>();
      expect(metadata.resource.startsWith(`${t.base}/mcp`), path).toBe(true);
      expect(metadata.authorization_servers).toEqual([t.base]);
    }
  });

  it('without PUBLIC_URL: the issuer is the banner origin, and no header names the resource', async () => {
    const local = await startOAuthServer({ PUBLIC_URL: '', TRUST_PROXY: 'true' });
    try {
      const port = new URL(local.base).port;
      // The start banner's origin for the default loopback bind.
      expect(local.base).toBe(localOrigin({ HOST: '127.0.0.1', PORT: Number(port) }));
      const discovery = (await (
        await fetch(
          new URL(
            '/.well-known/oauth-authorization-server',
            local.base.replace('127.0.0.1', 'localhost'),
          ),
        )
      ).json()) as Record<string, string>;
      expect(discovery['issuer']).toBe(`http://127.0.0.1:${port}`);
      expect(discovery['authorization_endpoint']).toBe(`http://127.0.0.1:${port}/oauth/authorize`);

      // inject: fetch would not send a Host of the test's choosing.
      const resourceOf = async (headers: Record<string, string>) => {
        const response = await local.app.inject({
          method: 'GET',
          url: '/.well-known/oauth-protected-resource',
          headers,
        });
        return response.json<{ resource: string; authorization_servers: string[] }>();
      };
      // A forged X-Forwarded-Host is never written into the answer.
      const forged = await resourceOf({ host: 'evil.example', 'x-forwarded-host': 'evil.example' });
      expect(forged.resource).toBe(`http://127.0.0.1:${port}/mcp`);
      expect(forged.authorization_servers).toEqual([`http://127.0.0.1:${port}`]);
      // A client that reached /mcp as localhost is answered with the resource it reached
      // (RFC 9728 makes it check); the authorization server stays the one origin.
      const viaLocalhost = await resourceOf({ host: `localhost:${port}` });
      expect(viaLocalhost.resource).toBe(`http://localhost:${port}/mcp`);
      expect(viaLocalhost.authorization_servers).toEqual([`http://127.0.0.1:${port}`]);
    } finally {
      await local.close();
    }
  });

  it('localOrigin: the address the banner prints for each bind', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'http://127.0.0.1:8787'],
      ['localhost', 'http://127.0.0.1:8787'],
      ['0.0.0.0', 'http://127.0.0.1:8787'],
      ['::', 'http://127.0.0.1:8787'],
      ['::1', 'http://[::1]:8787'],
      ['[::1]', 'http://[::1]:8787'],
      ['127.0.0.2', 'http://127.0.0.2:8787'],
      ['192.0.2.10', 'http://192.0.2.10:8787'],
      ['2001:db8::1', 'http://[2001:db8::1]:8787'],
      ['engram.lan', 'http://engram.lan:8787'],
    ];
    for (const [HOST, origin] of cases)
      expect(localOrigin({ HOST, PORT: 8787 }), HOST).toBe(origin);
    expect(localOrigin({ HOST: '127.0.0.1', PORT: 80 })).toBe('http://127.0.0.1');
  });
});

describe('item 5: two resource parameters', () => {
  it('are refused at authorize with invalid_target, before the consent screen', async () => {
    const url = authorizeUrl({});
    url.searchParams.append('resource', `${t.base}/mcp/alpha`);
    const { landed } = await land(url);
    expect(`${landed.pathname}${landed.search}`).toBe('/oauth/error?error=invalid_target');
  });
});

describe('item 7 and 8: redirect URIs', () => {
  it("refuses plain http outside loopback for a client that says it is 'web'", async () => {
    for (const uri of ['http://evil.example/cb', 'http://192.0.2.1/cb']) {
      const { status, body } = await register({ application_type: 'web', redirect_uris: [uri] });
      expect(status, uri).toBe(400);
      expect(body['error']).toBe('invalid_redirect_uri');
    }
    for (const uri of [
      'https://app.example/cb',
      'http://127.0.0.1:9/cb',
      'http://localhost:9/cb',
    ]) {
      const { status } = await register({ application_type: 'web', redirect_uris: [uri] });
      expect(status, uri).toBe(201);
    }
  });

  it('matches a loopback redirect URI on any port (RFC 8252 §7.3), and nothing else loosely', async () => {
    const other = await land(authorizeUrl({ redirect_uri: 'http://127.0.0.1:53117/callback' }));
    expect(other.landed.pathname).toBe('/oauth/consent');
    const path = await land(authorizeUrl({ redirect_uri: 'http://127.0.0.1:53117/other' }));
    expect(path.landed.pathname).toBe('/oauth/error');
  });
});

describe('item 9 and issue 58 item 4: an invalid request never leaves Engram', () => {
  it('shows the error page instead of redirecting to a registered client', async () => {
    const phishing = await registered(['https://evil.example/landing']);
    for (const params of [
      { code_challenge: undefined, code_challenge_method: undefined }, // no PKCE
      { code_challenge_method: 'plain' },
      { resource: 'https://elsewhere.example/mcp' },
      { response_type: 'token' },
      { prompt: 'none' },
    ]) {
      const url = authorizeUrl(
        { redirect_uri: 'https://evil.example/landing', ...params },
        phishing,
      );
      const response = await fetch(url, { redirect: 'manual' });
      const location = response.headers.get('location') ?? '';
      expect(response.status, JSON.stringify(params)).toBe(303);
      expect(location, JSON.stringify(params)).toMatch(/^\/oauth\/error\?error=[a-z_]+$/);
    }
    // An unknown client, and no client at all: the same page.
    for (const url of [authorizeUrl({}, 'unknown-client'), new URL('/oauth/authorize', t.base)]) {
      const { landed } = await land(url);
      expect(landed.pathname).toBe('/oauth/error');
    }
  });

  it('sends only a request the person answered back to the client', async () => {
    const browser = new TestBrowser();
    const { landed } = await land(authorizeUrl({}), browser);
    const redirectTo = await answerConsent(
      t.base,
      session,
      landed.searchParams.get('uid')!,
      'deny',
    );
    const { url } = await browser.follow(redirectTo, t.base);
    expect(url.href.startsWith(REDIRECT)).toBe(true);
    expect(url.searchParams.get('error')).toBe('access_denied');
  });

  it('sends a resume it cannot carry on to the error page', async () => {
    const response = await fetch(new URL('/oauth/authorize/some-uid?consent=wrong', t.base), {
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/oauth/error?error=not_answered_here');
  });

  it('keeps RFC JSON on token, register and revoke, even for a browser', async () => {
    const html = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
    for (const [url, payload] of [
      ['/oauth/token', 'grant_type=authorization_code&code=x&client_id=nobody'],
      ['/oauth/revoke', 'token=x&client_id=nobody'],
    ] as const) {
      const response = await t.app.inject({ method: 'POST', url, headers: html, payload });
      expect(response.headers['content-type'], url).toContain('application/json');
      expect(response.json<{ error: string }>().error, url).toMatch(/^[a-z_]+$/);
    }
    const registration = await t.app.inject({
      method: 'POST',
      url: '/oauth/register',
      remoteAddress: '198.51.100.250',
      headers: { accept: 'text/html', 'content-type': 'application/json' },
      payload: JSON.stringify({ redirect_uris: ['javascript:alert(1)'] }),
    });
    expect(registration.statusCode).toBe(400);
    expect(registration.json<{ error: string }>().error).toBe('invalid_redirect_uri');
  });
});

describe('item 15', () => {
  it('names no registration_client_uri (nor a token for it) in the registration answer', async () => {
    const { status, body } = await register({ redirect_uris: [REDIRECT] });
    expect(status).toBe(201);
    expect(body).not.toHaveProperty('registration_client_uri');
    expect(body).not.toHaveProperty('registration_access_token');
  });

  it('does not advertise openid, and refuses it on the error page instead of looping to consent', async () => {
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-authorization-server', t.base))
    ).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual(['memory:read', 'memory:write']);
    const { landed } = await land(authorizeUrl({ scope: 'openid memory:read' }));
    expect(`${landed.pathname}${landed.search}`).toBe('/oauth/error?error=invalid_scope');
  });

  it('uses up a code after a failed PKCE attempt', async () => {
    const { verifier, challenge } = pkce();
    const browser = new TestBrowser();
    const { landed } = await land(authorizeUrl({ code_challenge: challenge }), browser);
    const redirectTo = await answerConsent(
      t.base,
      session,
      landed.searchParams.get('uid')!,
      'allow',
    );
    const { url } = await browser.follow(redirectTo, t.base);
    const code = url.searchParams.get('code')!;
    const redeem = (codeVerifier: string) =>
      tokenRequest(t.base, {
        grant_type: 'authorization_code',
        client_id: client,
        code,
        redirect_uri: REDIRECT,
        code_verifier: codeVerifier,
      });
    expect((await redeem(pkce().verifier)).body.error).toBe('invalid_grant');
    const second = await redeem(verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect(second.body).not.toHaveProperty('access_token');
  });
});

describe('issue 58 item 2: the sign-in page names the app asking', () => {
  it('tells a signed-out browser the app and its return host, and nothing for an unknown request', async () => {
    const { landed } = await land(authorizeUrl({}));
    const uid = landed.searchParams.get('uid')!;
    const app = await fetch(new URL(`/api/oauth/interactions/${uid}/app`, t.base));
    expect(app.status).toBe(200);
    expect(await app.json()).toEqual({ name: 'Hardening Test', redirectHost: '127.0.0.1:9' });
    const unknown = await fetch(new URL('/api/oauth/interactions/no-such-uid/app', t.base));
    expect(unknown.status).toBe(404);
  });
});

describe('issue 58 item 3: the consent screen names the one space', () => {
  it('answers no space for /mcp (the default space) and the slug for /mcp/<slug>', async () => {
    for (const [resource, space] of [
      [`${t.base}/mcp`, undefined],
      [`${t.base}/mcp/alpha`, 'alpha'],
    ] as const) {
      const { landed } = await land(authorizeUrl({ resource }));
      const details = await t.app.inject({
        method: 'GET',
        url: `/api/oauth/interactions/${landed.searchParams.get('uid')}`,
        headers: { authorization: `Bearer ${session}` },
      });
      expect(details.json<{ resource: string; space?: string }>()).toMatchObject({ resource });
      expect(details.json<{ space?: string }>().space).toBe(space);
    }
  });
});

describe('a grant for a space’s own address (/mcp/<slug>)', () => {
  it('ends with the space: a new space that takes the slug is not its', async () => {
    const { token, user } = await signUp(t.app);
    await setPlan(t, user.id, 'pro');
    const call = as(t.app, token);
    const space = (slug: string) =>
      call({ method: 'POST', url: '/api/spaces', payload: { name: slug, slug } });
    expect((await space('user-7')).statusCode).toBe(201);

    const { verifier, challenge } = pkce();
    const browser = new TestBrowser();
    const resource = `${t.base}/mcp/user-7`;
    const { landed } = await land(authorizeUrl({ resource, code_challenge: challenge }), browser);
    const redirectTo = await answerConsent(t.base, token, landed.searchParams.get('uid')!, 'allow');
    const { url } = await browser.follow(redirectTo, t.base);
    const exchanged = await tokenRequest(t.base, {
      grant_type: 'authorization_code',
      client_id: client,
      code: url.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource,
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const accessToken = exchanged.body['access_token']!;
    const initialize = () => postMcp(t.base, accessToken, INITIALIZE, {}, '/mcp/user-7');
    expect((await initialize()).status).toBe(200);

    expect((await call({ method: 'DELETE', url: '/api/spaces/user-7' })).statusCode).toBe(200);
    await t.runtime.accounts.purge.idle();
    t.runtime.accounts.purge.kick();
    await t.runtime.accounts.purge.idle();
    expect((await space('user-7')).statusCode).toBe(201);

    expect((await initialize()).status).toBe(401);
    const refreshed = await tokenRequest(t.base, {
      grant_type: 'refresh_token',
      client_id: client,
      refresh_token: exchanged.body['refresh_token']!,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});
