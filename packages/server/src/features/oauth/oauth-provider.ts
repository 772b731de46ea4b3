import type { default as OidcProvider, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../db/connection.js';
import { mcpTargetOfResource } from '../../lib/protected-resource.js';
import { metadataFetch, METADATA_MAX_BYTES } from './metadata-fetch.js';
import { DatabaseAdapter } from './oauth-adapter.js';
import { MEMORY_SCOPES } from './scopes.js';

/** Where each endpoint of the authorization server is served (app routes mount exactly these). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const;

/** Where the library serves its discovery document; RFC 8414's path is answered with it too. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
/** The web app's consent screen (packages/web), given the interaction's uid. */
export const CONSENT_PATH = '/oauth/consent';
/** The web app's page for a failed authorization (packages/web), given `?error=<code>`. */
export const ERROR_PAGE_PATH = '/oauth/error';

/**
 * Where a browser is sent when an authorization cannot go on: Engram's own
 * page, which says what went wrong from a table of its own keyed by the
 * error code (never the request's words), with a way back. Anything but a
 * short code of lowercase letters and underscores is `server_error`.
 */
export function errorPageUrl(code: string): string {
  const safe = /^[a-z_]{1,64}$/.test(code) ? code : 'server_error';
  return `${ERROR_PAGE_PATH}?error=${safe}`;
}

/** Host names a redirect URI may use over plain http (RFC 8252 §7.3; docs/security.md, OAuth). */
const LOOPBACK_REDIRECT_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

const MINUTE = 60;
const DAY = 86_400;

export interface ProviderSettings {
  db: Db;
  issuer: string;
  /** The addresses of `/mcp` tokens are issued for (`mcpResources`), the issuer's first; each followed by `/<slug>` is a space's. */
  resources: string[];
  dynamicRegistration: boolean;
  allowPrivateNetwork: boolean;
  /** Extra CA trusted when fetching client metadata (tests). */
  metadataCa?: string | undefined;
  /** The signing key (a private JWK), kept in instance_settings. */
  signingKey: Record<string, unknown>;
  /** Keys the library signs its cookies with, kept in instance_settings. */
  cookieKeys: string[];
  /** TRUST_PROXY: how many proxy hops' X-Forwarded-* to believe. */
  trustProxyHops: number;
}

/** `<accountId>.<userId>`: the subject of every grant and token. */
export function subjectOf(accountId: string, userId: string): string {
  return `${accountId}.${userId}`;
}

export function ownerOfSubject(
  subject: string | undefined,
): { accountId: string; userId: string } | undefined {
  const match = /^([0-9a-f-]{36})\.([0-9a-f-]{36})$/.exec(subject ?? '');
  return match ? { accountId: match[1]!, userId: match[2]! } : undefined;
}

/**
 * The authorization server (decision 022): authorization code with PKCE S256
 * only, for the resource `/mcp` or a space's `/mcp/<slug>`; opaque access tokens of 10 minutes;
 * refresh tokens that rotate on every use (a rotated one used again ends the
 * whole grant: the library revokes it); clients registered dynamically or
 * known by a Client ID Metadata Document. Every sign-in and consent happens
 * in the web app (`interactions.url`); the library keeps no session between
 * authorizations (the routes drop its session cookie), so each one is asked.
 */
export async function createProvider(settings: ProviderSettings): Promise<OidcProvider> {
  const { errors, Provider } = await import('./oidc-provider.js');
  const configuration: Configuration = {
    adapter: (name: string) => new DatabaseAdapter(settings.db, name),
    clients: [],
    clientDefaults: {
      // OAuth 2.1's redirect rules: https, http on loopback only, or an app's
      // own scheme (desktop clients such as Cursor), unless a client says `web`.
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The one signing key is an EC key (no ID tokens are asked for: no `openid` scope).
      id_token_signed_response_alg: 'ES256',
    },
    scopes: [...MEMORY_SCOPES],
    // The library checks native clients' redirect URIs itself; a client that
    // says `web` gets the same rule for plain http: loopback only, never
    // `http://evil.example/cb` (docs/security.md, OAuth).
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator: (_ctx, key, value, metadata) => {
        if (key !== 'redirect_uris' || metadata.application_type !== 'web') return;
        for (const uri of Array.isArray(value) ? value : []) {
          const url = typeof uri === 'string' ? URL.parse(uri) : null;
          if (url?.protocol === 'http:' && !LOOPBACK_REDIRECT_HOSTS.has(url.hostname)) {
            throw new errors.InvalidClientMetadata(
              'redirect_uris using http as a protocol can only use loopback addresses as hostnames',
            );
          }
        }
      },
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    routes: OAUTH_ROUTES,
    cookies: {
      keys: settings.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    jwks: { keys: [settings.signingKey] },
    ttl: {
      AccessToken: 10 * MINUTE,
      AuthorizationCode: MINUTE,
      ClientCredentials: 10 * MINUTE,
      IdToken: 10 * MINUTE,
      Interaction: 10 * MINUTE,
      Session: 10 * MINUTE,
      RefreshToken: 30 * DAY,
      Grant: 365 * DAY,
    },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      introspection: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      // No registration access token, so no `registration_client_uri` naming
      // a management endpoint Engram does not serve.
      registration: {
        enabled: settings.dynamicRegistration,
        issueRegistrationAccessToken: false,
      },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        // `resource` is required on every authorization request; the token
        // endpoint uses the one the grant names.
        defaultResource: (ctx: KoaContextWithOIDC, _client: unknown, oneOf?: readonly string[]) => {
          if (oneOf) return oneOf;
          if (ctx.oidc.route === 'authorization' || ctx.oidc.route === 'resume') {
            throw new errors.InvalidTarget(`resource is required: ${settings.resources[0]}`);
          }
          return settings.resources[0]!;
        },
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx: KoaContextWithOIDC, resource: string) => {
          // One resource per request: a grant and its tokens name one address
          // (the library would take a list and the consent screen could not show it).
          const asked: unknown = ctx.oidc.params?.['resource'];
          if (Array.isArray(asked) && asked.length > 1) {
            throw new errors.InvalidTarget('only one resource may be requested');
          }
          // `/mcp` (the default space) or `/mcp/<slug>` (that space alone).
          if (!mcpTargetOfResource(settings.resources, resource)) {
            throw new errors.InvalidTarget(
              `resource must be ${settings.resources[0]} or ${settings.resources[0]}/<space>`,
            );
          }
          return {
            scope: MEMORY_SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: 10 * MINUTE,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    // MCP clients expect a refresh token without asking for offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    // Only the grant this authorization's consent just made: nothing is granted silently.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: (_ctx, sub) =>
      ownerOfSubject(sub) ? { accountId: sub, claims: () => ({ sub }) } : undefined,
    interactions: {
      url: (_ctx, interaction) => `${CONSENT_PATH}?uid=${encodeURIComponent(interaction.uid)}`,
    },
    fetch: metadataFetch({
      allowPrivateNetwork: settings.allowPrivateNetwork,
      ca: settings.metadataCa,
    }),
    fetchResponseBodyLimits: { 'client_id metadata document': METADATA_MAX_BYTES },
    // Public clients call the token endpoint from anywhere; nothing there rides on cookies.
    clientBasedCORS: () => true,
    // A browser at the authorization endpoint (or its resume) is sent to
    // Engram's error page; every other endpoint answers RFC JSON, even to a
    // browser that asks for HTML.
    renderError: (ctx, out) => {
      const route = (ctx.oidc as { route?: string } | undefined)?.route;
      if (route === 'authorization' || route === 'resume') {
        ctx.status = 303;
        ctx.redirect(errorPageUrl(out.error));
        return;
      }
      ctx.type = 'json';
      ctx.body = { error: out.error, error_description: out.error_description };
    },
  };
  const provider = new Provider(settings.issuer, configuration);
  provider.proxy = settings.trustProxyHops > 0;
  provider.maxIpsCount = settings.trustProxyHops;

  // An authorization request that fails is never sent back to the client's
  // redirect URI: that would make Engram's address a bounce to any site a
  // registered client names (an open redirect). It goes to Engram's error
  // page instead (renderError); only a request the person answered (resume:
  // Allow, or Deny as access_denied) returns to the client. The library
  // emits these events just before it chooses between the two.
  const keepOnEngram = (ctx: KoaContextWithOIDC, error: unknown) => {
    if (ctx.oidc?.route === 'authorization' && error instanceof errors.OIDCProviderError) {
      error.allow_redirect = false;
    }
  };
  provider.on('authorization.error', keepOnEngram);
  provider.on('server_error', keepOnEngram);

  provider.use(async (koa, next) => {
    await next();
    const ctx = koa as KoaContextWithOIDC;
    const route = (ctx.oidc as { route?: string } | undefined)?.route;
    if (route === 'discovery' && ctx.status === 200) {
      // The library counts `openid` among its scopes; Engram grants only the
      // memory scopes and issues no ID tokens (decision 022), so it advertises those.
      (ctx.body as Record<string, unknown>)['scopes_supported'] = [...MEMORY_SCOPES];
      // Built from the issuer alone, but a cache in front must not keep it either.
      ctx.set('cache-control', 'no-store');
    } else if (route === 'token' && ctx.status === 400) {
      await useUpFailedCode(ctx);
    }
  });
  return provider;
}

/**
 * A code exchange that failed (a wrong `code_verifier` or `redirect_uri`)
 * uses the code up: the next attempt, right or wrong, is a code used twice,
 * which ends the grant (docs/security.md, OAuth). A stolen code gets one
 * guess at its verifier, never many.
 */
async function useUpFailedCode(ctx: KoaContextWithOIDC): Promise<void> {
  const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
  const body = ctx.body as { error?: unknown } | undefined;
  if (body?.error !== 'invalid_grant' || params['grant_type'] !== 'authorization_code') return;
  const value = params['code'];
  if (typeof value !== 'string') return;
  const code = await ctx.oidc.provider.AuthorizationCode.find(value, { ignoreExpiration: true });
  await code?.consume();
}
