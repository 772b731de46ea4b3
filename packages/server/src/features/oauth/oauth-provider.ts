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
      registration: { enabled: settings.dynamicRegistration },
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
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          // `/mcp` (every space a grant reaches) or `/mcp/<slug>` (that space alone).
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
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = { error: out.error, error_description: out.error_description };
    },
  };
  const provider = new Provider(settings.issuer, configuration);
  provider.proxy = settings.trustProxyHops > 0;
  provider.maxIpsCount = settings.trustProxyHops;
  return provider;
}
