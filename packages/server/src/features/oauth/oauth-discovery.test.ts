import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkce, startOAuthServer, TestBrowser, type OAuthTestServer } from '../../test/oauth.js';

let t: OAuthTestServer;

beforeAll(async () => {
  t = await startOAuthServer();
});
afterAll(async () => {
  await t.close();
});

describe('OAuth discovery', () => {
  it('serves RFC 8414 metadata naming every endpoint and what is supported', async () => {
    const response = await fetch(new URL('/.well-known/oauth-authorization-server', t.base));
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: t.base,
      authorization_endpoint: `${t.base}/oauth/authorize`,
      token_endpoint: `${t.base}/oauth/token`,
      registration_endpoint: `${t.base}/oauth/register`,
      revocation_endpoint: `${t.base}/oauth/revoke`,
      jwks_uri: `${t.base}/oauth/jwks`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
    });
    expect(metadata['token_endpoint_auth_methods_supported']).toContain('none');
    expect(metadata['scopes_supported']).toEqual(
      expect.arrayContaining(['memory:read', 'memory:write']),
    );
    expect(metadata['grant_types_supported']).not.toContain('implicit');
    expect(metadata['grant_types_supported']).not.toContain('client_credentials');
    const openid = await fetch(new URL('/.well-known/openid-configuration', t.base));
    expect(await openid.json()).toEqual(metadata);
    const jwks = await fetch(new URL('/oauth/jwks', t.base));
    const keys = ((await jwks.json()) as { keys: Record<string, unknown>[] }).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('serves protected resource metadata naming the authorization server, at both addresses', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, t.base));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: `${t.base}/mcp`,
        authorization_servers: [t.base],
        scopes_supported: ['memory:read', 'memory:write'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it("serves a space's own protected resource metadata, for valid slugs only", async () => {
    const response = await fetch(
      new URL('/.well-known/oauth-protected-resource/mcp/alpha?x=1', t.base),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toMatchObject({
      resource: `${t.base}/mcp/alpha`,
      authorization_servers: [t.base],
      scopes_supported: ['memory:read', 'memory:write'],
    });
    for (const slug of ['Alpha', '-alpha', 'a%2Fb']) {
      const refused = await fetch(
        new URL(`/.well-known/oauth-protected-resource/mcp/${slug}`, t.base),
      );
      expect(refused.status, slug).toBe(404);
    }
  });

  it('answers /mcp without a credential with 401 naming the metadata', async () => {
    const response = await fetch(new URL('/mcp', t.base), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${t.base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("answers browser clients' preflights on the token endpoint and the metadata", async () => {
    for (const path of [
      '/oauth/token',
      '/oauth/revoke',
      '/.well-known/oauth-authorization-server',
    ]) {
      const response = await fetch(new URL(path, t.base), {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': path.startsWith('/.well-known') ? 'GET' : 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin'), path).toBeTruthy();
    }
  });

  it('leaves the web app its /oauth/consent page', async () => {
    // No web build in tests: Engram's own 404, not the authorization server's answer.
    const response = await fetch(new URL('/oauth/consent?uid=x', t.base));
    expect(await response.text()).not.toContain('error_description');
  });

  it('keeps its signing key in instance_settings, generated once', async () => {
    const jwks = (await (await fetch(new URL('/oauth/jwks', t.base))).json()) as {
      keys: { kid: string }[];
    };
    const setting = await t.database.db
      .selectFrom('instance_settings')
      .select('value')
      .where('name', '=', 'oauth_signing_key')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(setting.value).kid).toBe(jwks.keys[0]!.kid);
  });
});

describe('without dynamic registration', () => {
  it('advertises no registration endpoint and refuses registrations', async () => {
    const other = await startOAuthServer({ OAUTH_DYNAMIC_REGISTRATION: 'false' });
    try {
      const metadata = (await (
        await fetch(new URL('/.well-known/oauth-authorization-server', other.base))
      ).json()) as Record<string, unknown>;
      expect(metadata).not.toHaveProperty('registration_endpoint');
      expect(metadata['client_id_metadata_document_supported']).toBe(true);
      const register = await fetch(new URL('/oauth/register', other.base), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
      });
      expect(register.status).toBeGreaterThanOrEqual(400);
    } finally {
      await other.close();
    }
  });
});

describe('without PUBLIC_URL', () => {
  it('issues tokens for /mcp under any loopback name the client reached, and no other', async () => {
    const local = await startOAuthServer({ PUBLIC_URL: '' });
    try {
      const port = new URL(local.base).port;
      const metadata = (await (
        await fetch(new URL('/.well-known/oauth-protected-resource/mcp', local.base))
      ).json()) as { resource: string; authorization_servers: string[] };
      expect(metadata.resource).toBe(`${local.base}/mcp`);
      // The issuer is the origin the start banner prints (issue 58: one origin).
      expect(metadata.authorization_servers).toEqual([`http://127.0.0.1:${port}`]);

      const registration = await fetch(new URL('/oauth/register', local.base), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Local Agent',
          redirect_uris: ['http://127.0.0.1:9/callback'],
          token_endpoint_auth_method: 'none',
        }),
      });
      const { client_id } = (await registration.json()) as { client_id: string };
      const authorize = (resource: string) => {
        const url = new URL('/oauth/authorize', local.base);
        const params = {
          client_id,
          response_type: 'code',
          redirect_uri: 'http://127.0.0.1:9/callback',
          scope: 'memory:read',
          resource,
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        };
        for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
        return new TestBrowser().follow(url.href, local.base);
      };
      for (const host of ['127.0.0.1', 'localhost']) {
        for (const path of ['/mcp', '/mcp/alpha']) {
          const { url } = await authorize(`http://${host}:${port}${path}`);
          expect(url.pathname).toBe('/oauth/consent');
        }
      }
      for (const resource of [
        `http://192.0.2.1:${port}/mcp`,
        `http://192.0.2.1:${port}/mcp/alpha`,
        `http://127.0.0.1:${port}/mcp/Alpha`,
        `http://127.0.0.1:${port}/mcp/alpha/beta`,
        `http://127.0.0.1:${port}/mcpx`,
        `http://127.0.0.1:${port}/mcp/`,
      ]) {
        const refused = await authorize(resource);
        expect(refused.url.searchParams.get('error'), resource).toBe('invalid_target');
      }
    } finally {
      await local.close();
    }
  });
});
