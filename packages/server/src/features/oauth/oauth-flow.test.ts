import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../test/harness.js';
import {
  callTool,
  connectMcp,
  connectMcpModern,
  eventually,
  INITIALIZE,
} from '../../test/mcp-client.js';
import {
  answerConsent,
  startHttpsServer,
  startOAuthServer,
  TestBrowser,
  type OAuthTestServer,
} from '../../test/oauth.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** An MCP client's OAuth state kept in memory, as the SDK's `OAuthClientProvider` asks. */
class MemoryOAuthClient implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(
    readonly clientMetadataUrl?: string,
    readonly name = 'Test Agent',
  ) {}

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client: StoredOAuthClientInformation) {
    this.client = client;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let t: OAuthTestServer;
let documents: Awaited<ReturnType<typeof startHttpsServer>>;
const metadataDocuments = new Map<string, string>();

beforeAll(async () => {
  documents = await startHttpsServer((path) => {
    const body = metadataDocuments.get(path);
    return body ? { status: 200, body } : { status: 404, body: '{}' };
  });
  t = await startOAuthServer(
    { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
    { metadataCa: documents.cert },
  );
});
afterAll(async () => {
  await t?.close();
  await documents?.close();
});

/**
 * The whole authorization as an MCP client and a person do it: the SDK
 * discovers and starts; the browser opens the authorization URL and lands on
 * the consent screen; the person allows through the consent API; the browser
 * resumes and ends at the client's redirect URI, whose code the SDK redeems.
 */
async function authorize(client: MemoryOAuthClient, session: string, path = '/mcp') {
  const serverUrl = new URL(path, t.base);
  expect(await auth(client, { serverUrl })).toBe('REDIRECT');
  const browser = new TestBrowser();
  const consent = await browser.follow(client.authorizationUrl!.href, t.base);
  if (consent.url.pathname !== '/oauth/consent') throw new Error(await consent.response.text());
  const uid = consent.url.searchParams.get('uid')!;

  const details = await fetch(new URL(`/api/oauth/interactions/${uid}`, t.base), {
    headers: { authorization: `Bearer ${session}` },
  });
  expect(details.status).toBe(200);
  const interaction = (await details.json()) as {
    client: { name: string; redirectHost: string };
    scopes: { scope: string }[];
    resource: string;
    space?: string;
  };
  expect(interaction.client.name).toBe(client.name);
  expect(interaction.client.redirectHost).toBe('127.0.0.1:9');
  expect(interaction.scopes.map((s) => s.scope)).toEqual(['memory:read', 'memory:write']);
  expect(interaction.resource).toBe(`${t.base}${path}`);
  expect(interaction.space).toBe(path === '/mcp' ? undefined : path.slice('/mcp/'.length));

  const redirectTo = await answerConsent(t.base, session, uid, 'allow');
  const landed = await browser.follow(redirectTo, t.base);
  if (!landed.url.href.startsWith(REDIRECT)) {
    throw new Error(`ended at ${landed.url.href}: ${await landed.response.text()}`);
  }
  expect(landed.url.searchParams.get('iss')).toBe(t.base);
  const code = landed.url.searchParams.get('code')!;
  expect(
    await auth(client, {
      serverUrl,
      authorizationCode: code,
      iss: landed.url.searchParams.get('iss')!,
    }),
  ).toBe('AUTHORIZED');
  expect(client.saved?.access_token).toBeTruthy();
  expect(client.saved?.refresh_token).toBeTruthy();
}

async function grantsOf(session: string) {
  const response = await fetch(new URL('/api/oauth/grants', t.base), {
    headers: { authorization: `Bearer ${session}` },
  });
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      grants: {
        id: string;
        client: { id: string; name: string };
        scopes: string[];
        lastUsedAt: string | null;
      }[];
    }
  ).grants;
}

async function runFlow(client: MemoryOAuthClient) {
  const { token: session } = await signUp(t.app);
  await authorize(client, session);
  const access = client.saved!.access_token;

  // Tools answer with the access token, in both protocol eras.
  const modern = await connectMcpModern(t.base, access);
  await callTool(modern, 'create_entities', {
    entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
  });
  const legacy = await connectMcp(t.base, access);
  const graph = await callTool<{ entities: { name: string }[] }>(legacy, 'read_graph');
  expect(graph.entities.map((e) => e.name)).toEqual(['Ada']);

  // The person sees the connected application.
  const [grant] = await grantsOf(session);
  expect(grant).toMatchObject({
    client: { name: client.name },
    scopes: ['memory:read', 'memory:write'],
  });
  expect(grant!.lastUsedAt).not.toBeNull();

  // A refresh gives a new pair; the new access token works.
  const before = client.saved!;
  expect(await auth(client, { serverUrl: new URL('/mcp', t.base) })).toBe('AUTHORIZED');
  expect(client.saved!.access_token).not.toBe(before.access_token);
  expect(client.saved!.refresh_token).not.toBe(before.refresh_token);
  const refreshed = await connectMcpModern(t.base, client.saved!.access_token);
  await callTool(refreshed, 'read_graph');

  // Disconnecting in Settings cuts the client off at once, open session included.
  expect(t.runtime.credentials.size).toBeGreaterThan(0);
  const revoke = await fetch(new URL(`/api/oauth/grants/${grant!.id}`, t.base), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${session}` },
  });
  expect(await revoke.json()).toEqual({ success: true });
  for (const token of [access, client.saved!.access_token]) {
    const response = await fetch(new URL('/mcp', t.base), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
  }
  await expect(callTool(legacy, 'read_graph')).rejects.toThrow();
  await eventually(() => t.runtime.credentials.size === 0, 5_000, 'the session to end');
  expect(await grantsOf(session)).toEqual([]);
  await Promise.allSettled([modern.close(), legacy.close(), refreshed.close()]);
}

describe('OAuth with the MCP SDK client', () => {
  it('connects a client that registers itself (DCR), refreshes, and is cut off when revoked', async () => {
    const client = new MemoryOAuthClient();
    await runFlow(client);
    expect(client.client?.client_id).toBeTruthy();
    expect(client.client?.client_id).not.toMatch(/^https:/);
  });

  it('connects a client known by its Client ID Metadata Document', async () => {
    const path = '/agent/client.json';
    const clientId = `${documents.origin}${path}`;
    const client = new MemoryOAuthClient(clientId, 'Metadata Agent');
    metadataDocuments.set(path, JSON.stringify({ client_id: clientId, ...client.clientMetadata }));
    await runFlow(client);
    expect(client.client?.client_id).toBe(clientId);
  });
});

/** A 2025-era `initialize` posted to `path`, with `token` when given. */
function initializeAt(path: string, token?: string) {
  return fetch(new URL(path, t.base), {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(INITIALIZE),
  });
}

/** The 401 challenge's metadata address for `path`. */
const challengeFor = (path: string) =>
  `resource_metadata="${t.base}/.well-known/oauth-protected-resource${path}"`;

describe("OAuth for a space's own address (/mcp/<slug>)", () => {
  it('issues a token for that space alone, accepted at its address only', async () => {
    const { token: session } = await signUp(t.app);
    for (const slug of ['alpha', 'beta']) {
      const created = await fetch(new URL('/api/spaces', t.base), {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: slug, slug }),
      });
      expect(created.status).toBe(201);
    }
    // Without a credential, the challenge names the space's own metadata.
    const anonymous = await initializeAt('/mcp/alpha');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain(challengeFor('/mcp/alpha'));

    const client = new MemoryOAuthClient(undefined, 'Space Agent');
    // The SDK discovers the space's own metadata and asks for resource=<base>/mcp/alpha.
    await authorize(client, session, '/mcp/alpha');
    const access = client.saved!.access_token;

    const context = await t.runtime.oauth.authenticateAccessToken(access);
    expect(context).toMatchObject({
      scopes: ['memory:read', 'memory:write'],
      permissions: ['space:alpha:write'],
      resource: '/mcp/alpha',
    });

    const atAlpha = await initializeAt('/mcp/alpha', access);
    expect(atAlpha.status).toBe(200);
    await atAlpha.text();
    for (const path of ['/mcp', '/mcp/beta']) {
      const elsewhere = await initializeAt(`${path}?x=1`, access);
      expect(elsewhere.status, path).toBe(401);
      expect(await elsewhere.json()).toMatchObject({
        error: 'Access token was issued for /mcp/alpha, not this address',
        code: 'UNAUTHORIZED',
      });
    }
    const atMcp = await initializeAt('/mcp', access);
    expect(atMcp.headers.get('www-authenticate')).toContain(challengeFor('/mcp'));
    const atBeta = await initializeAt('/mcp/beta', access);
    expect(atBeta.headers.get('www-authenticate')).toContain(challengeFor('/mcp/beta'));

    // Connected apps shows its scopes like any other grant's.
    const [grant] = await grantsOf(session);
    expect(grant).toMatchObject({
      client: { name: 'Space Agent' },
      scopes: ['memory:read', 'memory:write'],
    });

    // A refresh keeps it bound to the space.
    expect(await auth(client, { serverUrl: new URL('/mcp/alpha', t.base) })).toBe('AUTHORIZED');
    const refreshed = await t.runtime.oauth.authenticateAccessToken(client.saved!.access_token);
    expect(refreshed).toMatchObject({ permissions: ['space:alpha:write'], resource: '/mcp/alpha' });
  });

  it('keeps a token for /mcp reaching every space, at /mcp only', async () => {
    const { token: session } = await signUp(t.app);
    const client = new MemoryOAuthClient(undefined, 'Every Space Agent');
    await authorize(client, session);
    const access = client.saved!.access_token;
    const context = await t.runtime.oauth.authenticateAccessToken(access);
    expect(context).toMatchObject({ permissions: ['spaces:*:write'], resource: '/mcp' });
    const atMcp = await initializeAt('/mcp', access);
    expect(atMcp.status).toBe(200);
    await atMcp.text();
    const atSpace = await initializeAt('/mcp/default', access);
    expect(atSpace.status).toBe(401);
    expect(await atSpace.json()).toMatchObject({
      error: 'Access token was issued for /mcp, not this address',
    });
  });
});
