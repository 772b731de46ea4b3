import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/connection.js';
import { mcpResources, oauthIssuer } from '../../lib/protected-resource.js';
import { defineFeature } from '../feature.js';
import type { SpacesService } from '../spaces/index.js';
import { GrantUsageTracker } from './grant-usage.js';
import { createProvider } from './oauth-provider.js';
import { initSetting } from '../../db/instance-settings.js';
import { oauthRoutes } from './oauth.routes.js';
import { createOAuthService, type OAuthService } from './oauth.service.js';

export type { OAuthService } from './oauth.service.js';
export { missingScope } from './scopes.js';

/** Tests serve client metadata documents over https with a certificate of their own. */
export interface OAuthTuning {
  metadataCa?: string;
}

const CLEANUP_MS = 10 * 60_000;

/** The signing key and cookie key, generated on first start and kept in the database (never in code). */
async function instanceKeys(db: Db) {
  const generated = () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return JSON.stringify({
      ...privateKey.export({ format: 'jwk' }),
      kid: randomUUID(),
      alg: 'ES256',
      use: 'sig',
    });
  };
  const signingKey = JSON.parse(await initSetting(db, 'oauth_signing_key', generated())) as Record<
    string,
    unknown
  >;
  const cookieKey = await initSetting(db, 'oauth_cookie_key', randomBytes(32).toString('hex'));
  return { signingKey, cookieKeys: [cookieKey] };
}

/** OAuth 2.1 for `/mcp`: the authorization server, consent and Connected apps (decision 022). */
export const oauthFeature = defineFeature({
  name: 'oauth',
  async create(
    context,
    { spaces }: { spaces: SpacesService },
    tuning?: OAuthTuning,
  ): Promise<OAuthService> {
    const { config, db } = context;
    const issuer = oauthIssuer(config);
    const resources = mcpResources(config);
    const keys = await instanceKeys(db);
    // The library (~20 MB resident) is loaded and the server built on the
    // first OAuth request: a server no chat client connects to never holds it.
    let created: Promise<Provider> | undefined;
    const provider = () =>
      (created ??= createProvider({
        db,
        issuer,
        resources,
        dynamicRegistration: config.OAUTH_DYNAMIC_REGISTRATION === 'true',
        allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK_TARGETS === 'true',
        metadataCa: tuning?.metadataCa,
        trustProxyHops: config.TRUST_PROXY,
        ...keys,
      }).then((server) => {
        // A refresh token or code used twice, or a refresh token revoked: the library ended the grant.
        server.on('grant.revoked', (_ctx: unknown, grantId: string) =>
          context.credentialsChanged([{ kind: 'oauth', id: grantId }]),
        );
        server.on('server_error', (_ctx: unknown, error: unknown) =>
          context.onError(error, 'OAuth authorization server error'),
        );
        return server;
      })).catch((error: unknown) => {
        created = undefined; // the next request tries again
        throw error;
      });

    const usage = new GrantUsageTracker(db, context.onError);
    usage.start(5_000);
    context.onClose(() => usage.stop());
    const service = createOAuthService({
      db,
      now: context.now,
      provider,
      resources,
      usage,
      credentialsChanged: context.credentialsChanged,
    });
    const cleanup = setInterval(() => {
      service
        .removeExpiredRecords()
        .catch((error: unknown) =>
          context.onError(error, 'could not remove expired OAuth records'),
        );
    }, CLEANUP_MS);
    cleanup.unref();
    context.onClose(() => clearInterval(cleanup));
    // A space's own address goes with the space (decision 039).
    spaces.whenSpaceDeleted(service.endSpaceGrants);
    return { ...service, provider, issuer };
  },
  routes: oauthRoutes,
});
