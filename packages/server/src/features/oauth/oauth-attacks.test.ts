import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../runtime.js';
import { signUp, testConfig } from '../../test/harness.js';
import {
  callTool,
  callToolError,
  connectMcp,
  connectMcpModern,
  INITIALIZE,
  postMcp,
} from '../../test/mcp-client.js';
import {
  answerConsent,
  pkce,
  startHttpsServer,
  startOAuthServer,
  TestBrowser,
  tokenRequest,
  type OAuthTestServer,
} from '../../test/oauth.js';
import { missingScope } from './scopes.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

let t: OAuthTestServer;
let session: string;
let clientA: string;
let clientB: string;
let registrations = 0;

async function register(redirectUris: string[], extra: Record<string, unknown> = {}) {
  registrations += 1;
  return fetch(new URL('/oauth/register', t.base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Attack Test',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    }),
  });
}

async function registered(redirectUris = [REDIRECT]): Promise<string> {
  const response = await register(redirectUris);
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeUrl(params: Record<string, string | undefined>): string {
  const url = new URL('/oauth/authorize', t.base);
  const defaults = {
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'memory:read memory:write',
    resource: `${t.base}/mcp`,
    state: 'st4te',
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries({ ...defaults, ...params })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}

/** Starts an authorization in a browser; the consent screen's uid, or where it ended instead. */
async function start(browser: TestBrowser, params: Record<string, string | undefined>) {
  const { url, response } = await browser.follow(authorizeUrl(params), t.base);
  return {
    uid: url.pathname === '/oauth/consent' ? url.searchParams.get('uid') : null,
    url,
    response,
  };
}

/** A whole authorization, allowed by the person: the code and its verifier. */
async function codeFor(clientId: string, scope = 'memory:read memory:write') {
  const { verifier, challenge } = pkce();
  const browser = new TestBrowser();
  const { uid } = await start(browser, { client_id: clientId, code_challenge: challenge, scope });
  expect(uid).toBeTruthy();
  const redirectTo = await answerConsent(t.base, session, uid!, 'allow');
  const { url } = await browser.follow(redirectTo, t.base);
  expect(url.href.startsWith(REDIRECT)).toBe(true);
  return { code: url.searchParams.get('code')!, verifier };
}

function redeem(clientId: string, code: string, verifier: string | undefined) {
  return tokenRequest(t.base, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
  });
}

async function tokensFor(clientId: string, scope?: string) {
  const { code, verifier } = await codeFor(clientId, scope);
  const { status, body } = await redeem(clientId, code, verifier);
  expect(status).toBe(200);
  return body as { access_token: string; refresh_token: string; scope: string };
}

async function mcpStatus(token: string) {
  const response = await postMcp(t.base, token, INITIALIZE);
  await response.text();
  return response.status;
}

beforeAll(async () => {
  t = await startOAuthServer();
  session = (await signUp(t.app)).token;
  clientA = await registered();
  clientB = await registered();
});
afterAll(async () => {
  await t.close();
});

describe('PKCE and codes', () => {
  it('refuses a wrong or missing verifier', async () => {
    const { code, verifier } = await codeFor(clientA);
    expect((await redeem(clientA, code, pkce().verifier)).body.error).toBe('invalid_grant');
    const again = await codeFor(clientA);
    expect((await redeem(clientA, again.code, undefined)).status).toBe(400);
    expect(verifier).toBeTruthy();
  });

  it('requires S256: no challenge, or plain, is refused before consent', async () => {
    for (const params of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge: pkce().verifier, code_challenge_method: 'plain' },
    ]) {
      const { uid, url } = await start(new TestBrowser(), { client_id: clientA, ...params });
      expect(uid).toBeNull();
      expect(url.pathname).toBe('/oauth/error');
      expect(url.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('refuses a code used twice, and ends what the first use issued', async () => {
    const { code, verifier } = await codeFor(clientA);
    const first = await redeem(clientA, code, verifier);
    expect(first.status).toBe(200);
    expect(await mcpStatus(first.body['access_token']!)).toBe(200);
    const second = await redeem(clientA, code, verifier);
    expect(second.body.error).toBe('invalid_grant');
    expect(await mcpStatus(first.body['access_token']!)).toBe(401);
  });

  it("refuses one client's code to another client", async () => {
    const { code, verifier } = await codeFor(clientA);
    expect((await redeem(clientB, code, verifier)).body.error).toBe('invalid_grant');
  });
});

describe('redirects', () => {
  it('never sends the browser to an unregistered redirect_uri', async () => {
    for (const redirect of [
      'https://evil.example/callback',
      'http://127.0.0.1:9/callback/../evil',
      'http://127.0.0.1:9/callback?next=https://evil.example',
      'http://127.0.0.1:9/callbackx',
      'http://127.0.0.1:9/callback#frag',
      '//evil.example/callback',
    ]) {
      const { uid, response, url } = await start(new TestBrowser(), {
        client_id: clientA,
        code_challenge: pkce().challenge,
        redirect_uri: redirect,
      });
      expect(uid).toBeNull();
      // Engram's error page (docs/connect.md), never the client's address.
      expect(url.origin).toBe(t.base);
      expect(url.pathname).toBe('/oauth/error');
      expect(url.searchParams.get('error')).toBe('invalid_redirect_uri');
      expect(response.status).toBe(303);
    }
  });

  it('registers https, loopback http and app schemes, and nothing else', async () => {
    for (const uri of [
      'javascript:alert(1)',
      'data:text/html,x',
      'https://app.example/cb#x',
      'http://app.example/cb',
    ]) {
      expect((await register([uri])).status).toBe(400);
    }
    for (const uri of [
      'https://app.example/cb',
      'http://localhost:33418/cb',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
    ]) {
      expect((await register([uri])).status).toBe(201);
    }
  });

  it('sends a denial back to the client with access_denied and the issuer', async () => {
    const browser = new TestBrowser();
    const { uid } = await start(browser, { client_id: clientA, code_challenge: pkce().challenge });
    const redirectTo = await answerConsent(t.base, session, uid!, 'deny');
    const { url } = await browser.follow(redirectTo, t.base);
    expect(url.href.startsWith(REDIRECT)).toBe(true);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('iss')).toBe(t.base);
    expect(url.searchParams.get('code')).toBeNull();
  });

  it("carries an answer on only in the browser that asked and with the answer's proof", async () => {
    const asker = new TestBrowser();
    const { uid } = await start(asker, { client_id: clientA, code_challenge: pkce().challenge });
    const redirectTo = await answerConsent(t.base, session, uid!, 'allow');
    // The asking browser without the proof (someone else answered a link it sent them).
    const withoutProof = new URL(redirectTo);
    withoutProof.searchParams.delete('consent');
    const refused = await asker.get(withoutProof.href);
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/oauth/error?error=not_answered_here');
    // Another browser with the proof but without the asking browser's cookie.
    const other = await new TestBrowser().follow(redirectTo, t.base);
    expect(other.url.searchParams.get('code')).toBeNull();
    // The proof worked once and is spent.
    const { url } = await asker.follow(redirectTo, t.base);
    expect(url.searchParams.get('code')).toBeNull();
  });
});

describe('resources and scopes', () => {
  it('requires resource, and only /mcp', async () => {
    for (const resource of [undefined, 'https://evil.example/mcp', `${t.base}/api`]) {
      const { uid, url } = await start(new TestBrowser(), {
        client_id: clientA,
        code_challenge: pkce().challenge,
        resource,
      });
      expect(uid).toBeNull();
      // An invalid request stays on Engram: its error page, not the client's redirect URI.
      expect(url.href.startsWith(`${t.base}/oauth/error?`)).toBe(true);
      expect(url.searchParams.get('error')).toBe('invalid_target');
    }
  });

  it('refuses a token for another resource at the token endpoint', async () => {
    const { code, verifier } = await codeFor(clientA);
    const { body } = await tokenRequest(t.base, {
      grant_type: 'authorization_code',
      client_id: clientA,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: 'https://evil.example/mcp',
    });
    expect(body.error).toBe('invalid_target');
  });

  it('accepts OAuth access tokens on /mcp only', async () => {
    const { access_token } = await tokensFor(clientA);
    expect(await mcpStatus(access_token)).toBe(200);
    expect((await t.runtime.authenticate(access_token))?.permissions).toEqual(['spaces:*:write']);
    for (const url of ['/api/entities', '/auth/me', '/api/keys', '/api/oauth/grants']) {
      const response = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(response.statusCode).toBe(401);
    }
  });

  it('gives a read-only grant only memory:read', async () => {
    const { access_token, scope } = await tokensFor(clientA, 'memory:read');
    expect(scope).toBe('memory:read');
    const auth = await t.runtime.authenticate(access_token);
    expect(auth?.scopes).toEqual(['memory:read']);
    expect(auth?.permissions).toEqual(['spaces:*:read']);
    expect(missingScope(auth!, 'memory:write')).toBe('memory:write');
    expect(missingScope(auth!, 'memory:read')).toBeUndefined();
    const key = await t.runtime.authenticate((await signUp(t.app)).user.apiKey);
    expect(missingScope(key!, 'memory:write')).toBeUndefined();
  });

  it('asks for both memory scopes when a client names none', async () => {
    const browser = new TestBrowser();
    const { uid } = await start(browser, {
      client_id: clientA,
      code_challenge: pkce().challenge,
      scope: undefined,
    });
    const details = await fetch(new URL(`/api/oauth/interactions/${uid}`, t.base), {
      headers: { authorization: `Bearer ${session}` },
    });
    const { scopes } = (await details.json()) as { scopes: { scope: string }[] };
    expect(scopes.map((s) => s.scope)).toEqual(['memory:read', 'memory:write']);
  });

  it("answers a read-only token's write tools with an error naming memory:write, and changes nothing", async () => {
    const { access_token } = await tokensFor(clientA, 'memory:read');
    for (const connect of [connectMcp, connectMcpModern]) {
      const client = await connect(t.base, access_token);
      try {
        const refusal = await callToolError(client, 'create_entities', {
          entities: [{ name: 'Planted', entityType: 'note', observations: ['written'] }],
        });
        expect(refusal).toMatch(/not granted memory:write/);
        const graph = await callTool<{ entities: { name: string }[] }>(client, 'search_nodes', {
          query: 'Planted',
        });
        expect(graph.entities).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });
});

describe('refresh tokens', () => {
  it('rotates them, and a rotated one used again ends the whole grant', async () => {
    const first = await tokensFor(clientA);
    const refresh = () =>
      tokenRequest(t.base, {
        grant_type: 'refresh_token',
        client_id: clientA,
        refresh_token: first.refresh_token,
      });
    const rotated = await refresh();
    expect(rotated.status).toBe(200);
    expect(rotated.body['refresh_token']).not.toBe(first.refresh_token);
    expect(await mcpStatus(rotated.body['access_token']!)).toBe(200);

    const reused = await refresh();
    expect(reused.body.error).toBe('invalid_grant');
    expect(await mcpStatus(rotated.body['access_token']!)).toBe(401);
    const next = await tokenRequest(t.base, {
      grant_type: 'refresh_token',
      client_id: clientA,
      refresh_token: rotated.body['refresh_token']!,
    });
    expect(next.body.error).toBe('invalid_grant');
  });
});

describe('the consent API', () => {
  it('answers an unknown request with 404, and takes a session only', async () => {
    const unknown = await fetch(new URL('/api/oauth/interactions/nope', t.base), {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: 'Authorization request not found or expired',
      code: 'NOT_FOUND',
    });
    const { user } = await signUp(t.app);
    const withKey = await fetch(new URL('/api/oauth/grants', t.base), {
      headers: { authorization: `Bearer ${user.apiKey}` },
    });
    expect(withKey.status).toBe(401);
  });

  it("refuses to revoke another person's grant", async () => {
    await tokensFor(clientA);
    const grants = (await (
      await fetch(new URL('/api/oauth/grants', t.base), {
        headers: { authorization: `Bearer ${session}` },
      })
    ).json()) as { grants: { id: string }[] };
    const other = await signUp(t.app);
    const response = await fetch(new URL(`/api/oauth/grants/${grants.grants[0]!.id}`, t.base), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(response.status).toBe(404);
  });

  it('ends every grant of a person whose password changes', async () => {
    const person = await signUp(t.app);
    const previous = session;
    session = person.token;
    try {
      const { access_token } = await tokensFor(clientA);
      expect(await mcpStatus(access_token)).toBe(200);
      const change = await fetch(new URL('/auth/password', t.base), {
        method: 'POST',
        headers: { authorization: `Bearer ${person.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ currentPassword: 'Password123', newPassword: 'Password456' }),
      });
      expect(change.status).toBeLessThan(300);
      expect(await mcpStatus(access_token)).toBe(401);
    } finally {
      session = previous;
    }
  });
});

describe('a person who leaves', () => {
  it('ends every grant of theirs when they delete themselves', async () => {
    const person = await signUp(t.app);
    const previous = session;
    session = person.token;
    try {
      const { access_token } = await tokensFor(clientA);
      expect(await mcpStatus(access_token)).toBe(200);
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: '/auth/me',
        headers: { authorization: `Bearer ${person.token}` },
        payload: { password: 'Password123' },
      });
      expect(deleted.statusCode).toBeLessThan(300);
      expect(await mcpStatus(access_token)).toBe(401);
    } finally {
      session = previous;
    }
  });
});

describe('across nodes', () => {
  it('verifies a token issued on one node on another node of the same database', async () => {
    const { access_token } = await tokensFor(clientA);
    const config = testConfig({ PORT: new URL(t.base).port, PUBLIC_URL: t.base });
    const other = await createRuntime(config, { database: t.database });
    try {
      const auth = await other.authenticate(access_token);
      expect(auth?.credential.kind).toBe('oauth');
    } finally {
      await other.close();
    }
  });
});

describe('client metadata documents', () => {
  it('refuses one served from a private address unless ALLOW_PRIVATE_NETWORK_TARGETS', async () => {
    const path = '/private/client.json';
    const documents = await startHttpsServer(() => ({
      status: 200,
      body: JSON.stringify({
        client_id: `${documentsOrigin()}${path}`,
        client_name: 'Private',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    }));
    const documentsOrigin = () => documents.origin;
    try {
      const { uid, url } = await start(new TestBrowser(), {
        client_id: `${documents.origin}${path}`,
        code_challenge: pkce().challenge,
      });
      expect(uid).toBeNull();
      expect(url.pathname).toBe('/oauth/error');
      expect(url.searchParams.get('error')).toBe('invalid_client');
    } finally {
      await documents.close();
    }
  });
});

describe('dynamic registration', () => {
  it('is limited per address', async () => {
    let limited = false;
    for (let attempt = registrations; attempt <= 12 && !limited; attempt++) {
      limited = (await register([REDIRECT])).status === 429;
    }
    expect(limited).toBe(true);
  });
});
