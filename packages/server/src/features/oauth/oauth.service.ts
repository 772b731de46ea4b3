import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  spacePermission,
  type OAuthDecision,
  type OAuthGrant,
  type OAuthInteraction,
} from '@engram/shared';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/connection.js';
import type { AuthContext, CredentialContext } from '../../lib/auth-context.js';
import { notFound, notFoundBecause } from '../../lib/errors.js';
import { mcpTargetOfResource } from '../../lib/protected-resource.js';
import { hashSecret } from '../../lib/secrets.js';
import { bindService, type CredentialChange } from '../feature.js';
import type { GrantUsageTracker } from './grant-usage.js';
import { ownerOfSubject, subjectOf } from './oauth-provider.js';
import * as repo from './oauth.repository.js';
import { isMemoryScope, MEMORY_READ, MEMORY_WRITE, SCOPE_DESCRIPTIONS } from './scopes.js';

export interface OAuthDeps {
  db: Db;
  now: () => Date;
  /** The authorization server, created on first use (features/oauth/index.ts). */
  provider: () => Promise<Provider>;
  /** The addresses of `/mcp` tokens are for (`mcpResources`), the issuer's first; each followed by `/<slug>` is a space's. */
  resources: string[];
  usage: GrantUsageTracker;
  /** Tells every node that these grants ended (MCP sessions opened with their tokens close). */
  credentialsChanged: (changes: CredentialChange[]) => void;
}

/** The one-time proof that the browser resuming an authorization is the one that answered it. */
const CONSENT_PROOF = 'ConsentProof';

const interactionGone = () => notFoundBecause('Authorization request not found or expired');

/** The authorization request `uid`, while it waits for an answer. */
async function pendingInteraction(deps: OAuthDeps, uid: string) {
  const server = await deps.provider();
  const interaction = await server.Interaction.find(uid);
  if (!interaction || interaction.result || interaction.exp * 1000 <= Date.now()) {
    throw interactionGone();
  }
  const params = interaction.params as Record<string, string | undefined>;
  if (!params['client_id'] || !params['redirect_uri']) throw interactionGone();
  const client = await server.Client.find(params['client_id']).catch(() => undefined);
  if (!client) throw interactionGone();
  return { interaction, params, client };
}

function requestedScopes(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter(isMemoryScope))];
}

function clientSummary(metadata: Record<string, unknown>, clientId: string) {
  const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
  return {
    id: clientId,
    name: text(metadata['client_name']) ?? clientId,
    logoUri: text(metadata['logo_uri']),
    clientUri: text(metadata['client_uri']),
  };
}

/** The address of `/mcp` or `/mcp/<slug>` the application asked for (the library refused any other). */
function requestedResource(deps: OAuthDeps, params: Record<string, string | undefined>) {
  const asked: unknown = params['resource'];
  // One string: the library refuses two resources at authorize (invalid_target).
  const target = typeof asked === 'string' ? mcpTargetOfResource(deps.resources, asked) : undefined;
  return target
    ? { resource: asked as string, space: target.space }
    : { resource: deps.resources[0]! };
}

/** Where the browser will be sent: the redirect URI's host, or its scheme for an app's own (`com.example.app:/cb`). */
function redirectHostOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || url.protocol.replace(/:$/, '');
}

/** What the application asks for, as the consent screen shows it (with the space, for a space's address). */
export async function interactionDetails(
  deps: OAuthDeps,
  _auth: AuthContext,
  uid: string,
): Promise<OAuthInteraction> {
  const { params, client } = await pendingInteraction(deps, uid);
  return {
    client: {
      ...clientSummary(client.metadata() as Record<string, unknown>, client.clientId),
      redirectHost: redirectHostOf(params['redirect_uri']!),
    },
    scopes: requestedScopes(params['scope']).map((scope) => ({
      scope,
      description: SCOPE_DESCRIPTIONS[scope as keyof typeof SCOPE_DESCRIPTIONS],
    })),
    ...requestedResource(deps, params),
  };
}

/**
 * Which application a pending authorization is for, before anyone signs in
 * (the sign-in page names it): its name and the host the browser would be
 * sent back to, nothing of any account. 404 when unknown or expired.
 */
export async function interactionApp(
  deps: OAuthDeps,
  uid: string,
): Promise<{ name: string; redirectHost: string }> {
  const { params, client } = await pendingInteraction(deps, uid);
  const summary = clientSummary(client.metadata() as Record<string, unknown>, client.clientId);
  return { name: summary.name, redirectHost: redirectHostOf(params['redirect_uri']!) };
}

/**
 * The person's answer: allowing grants the requested scopes on `/mcp` to the
 * application for this account and user; denying ends the request with
 * `access_denied`. Either way the browser is sent to resume the
 * authorization with a one-time proof, so only the browser that answered
 * can carry the answer on (with the cookie of the browser that asked).
 */
export async function decideInteraction(
  deps: OAuthDeps,
  auth: AuthContext,
  uid: string,
  decision: 'allow' | 'deny',
): Promise<OAuthDecision> {
  const { interaction, params, client } = await pendingInteraction(deps, uid);
  if (decision === 'allow') {
    const subject = subjectOf(auth.accountId, auth.userId);
    const { Grant } = await deps.provider();
    const grant = new Grant({ accountId: subject, clientId: client.clientId });
    const scopes = requestedScopes(params['scope']).join(' ');
    // The library counts the scopes it advertises as its own as well as the resource's.
    grant.addOIDCScope(scopes);
    grant.addResourceScope(requestedResource(deps, params).resource, scopes);
    const grantId = await grant.save();
    const summary = clientSummary(client.metadata() as Record<string, unknown>, client.clientId);
    await repo.insertGrantOwner(deps.db, {
      accountId: auth.accountId,
      id: grantId,
      userId: auth.userId,
      clientId: client.clientId,
      clientName: summary.name,
      clientLogoUri: summary.logoUri,
      clientUri: summary.clientUri,
    });
    interaction.result = { login: { accountId: subject }, consent: { grantId } };
  } else {
    interaction.result = {
      error: 'access_denied',
      error_description: 'The person declined the request',
    };
  }
  const ttl = Math.max(1, interaction.exp - Math.floor(Date.now() / 1000));
  await interaction.save(ttl);
  const proof = randomBytes(32).toString('base64url');
  await repo.upsertModel(deps.db, {
    kind: CONSENT_PROOF,
    id: uid,
    payload: { hash: hashSecret(proof) },
    grantId: null,
    uid: null,
    expiresAt: new Date(interaction.exp * 1000),
  });
  const redirectTo = new URL(interaction.returnTo);
  redirectTo.searchParams.set('consent', proof);
  return { redirectTo: redirectTo.href };
}

/** Whether `proof` is the one handed out with the answer to `uid`; it works once. */
export async function takeConsentProof(
  deps: OAuthDeps,
  uid: string,
  proof: string | undefined,
): Promise<boolean> {
  if (!proof) return false;
  const record = await repo.findModel(deps.db, CONSENT_PROOF, uid, new Date());
  const expected = record?.payload['hash'];
  if (typeof expected !== 'string') return false;
  const given = Buffer.from(hashSecret(proof));
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) {
    return false;
  }
  await repo.destroyModel(deps.db, CONSENT_PROOF, uid);
  return true;
}

export async function listGrants(deps: OAuthDeps, auth: AuthContext): Promise<OAuthGrant[]> {
  await deps.usage.flush();
  const rows = await repo.listGrants(deps.db, auth.accountId, auth.userId, new Date());
  return rows.map((row) => {
    const resources = (row.payload['resources'] ?? {}) as Record<string, string | undefined>;
    return {
      id: row.id,
      client: {
        id: row.client_id,
        name: row.client_name ?? row.client_id,
        logoUri: row.client_logo_uri,
        clientUri: row.client_uri,
      },
      scopes: [
        ...new Set(
          Object.keys(resources)
            .filter((resource) => mcpTargetOfResource(deps.resources, resource))
            .flatMap((resource) => requestedScopes(resources[resource])),
        ),
      ],
      createdAt: row.created_at.toISOString(),
      lastUsedAt: row.last_used_at?.toISOString() ?? null,
    };
  });
}

/** Disconnects an application: its grant and every token of it end at once, on every node. */
export async function revokeGrant(deps: OAuthDeps, auth: AuthContext, id: string): Promise<void> {
  if (!(await repo.grantBelongsTo(deps.db, auth.accountId, auth.userId, id))) {
    throw notFound('Connected app');
  }
  await repo.deleteGrant(deps.db, id);
  deps.credentialsChanged([{ kind: 'oauth', id }]);
}

/** Ends every grant of the person (a password change, the person's deletion). */
export async function revokeUserGrants(
  deps: OAuthDeps,
  userId: string,
  accountId?: string,
): Promise<void> {
  const ids = await repo.grantIdsOfUser(deps.db, userId, accountId);
  for (const id of ids) await repo.deleteGrant(deps.db, id);
  if (ids.length > 0) deps.credentialsChanged(ids.map((id) => ({ kind: 'oauth' as const, id })));
}

/**
 * A space was deleted (in `trx`): the grants for its own address
 * (`/mcp/<slug>`) end with it, as its scoped keys do (decision 039), so a
 * new space that takes the slug later is not reached by them.
 */
export async function endSpaceGrants(
  deps: OAuthDeps,
  trx: Db,
  accountId: string,
  slug: string,
): Promise<() => void> {
  const addresses = deps.resources.map((base) => `${base}/${slug}`);
  const ids = await repo.deleteGrantsForResources(trx, accountId, addresses);
  return () => deps.credentialsChanged(ids.map((id) => ({ kind: 'oauth' as const, id })));
}

/** Matches no space (slugs are lowercase letters, digits and dashes): access to nothing. */
const NO_SPACE = 'space:-:read';

/**
 * A token's scopes as space permissions (packages/shared spaces.ts): a token
 * for `/mcp` reaches every space, one for `/mcp/<slug>` (`space`) that space
 * alone; written with `memory:write`, read with `memory:read`. Never empty,
 * which would be full access: a token with neither scope gets a permission
 * no space matches, so it reaches nothing (nor the account's settings).
 */
export function permissionsOfScopes(scopes: readonly string[], space?: string): string[] {
  const access = scopes.includes(MEMORY_WRITE)
    ? 'write'
    : scopes.includes(MEMORY_READ)
      ? 'read'
      : undefined;
  if (!access) return [NO_SPACE];
  return [space ? spacePermission(space, access) : `spaces:*:${access}`];
}

/** Opaque access tokens are the library's 43-character random ids. */
const ACCESS_TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * Who an OAuth access token acts as: the account and user of its grant,
 * with the scopes granted, and those scopes as space permissions (every
 * space for a token issued for `/mcp`, one space for `/mcp/<slug>`). Only
 * tokens issued for those addresses are accepted, and `resource` says which,
 * so `/mcp` accepts a token only at its own address.
 */
export async function authenticateAccessToken(
  deps: OAuthDeps,
  token: string,
): Promise<CredentialContext | undefined> {
  if (!ACCESS_TOKEN.test(token) || token.startsWith('eng_')) return undefined;
  const accessToken = await (await deps.provider()).AccessToken.find(token);
  if (!accessToken?.grantId || !accessToken.exp || accessToken.isExpired) return undefined;
  // The library binds a token to the one resource it was asked for (`useGrantedResource`).
  const audiences: unknown[] = Array.isArray(accessToken.aud) ? accessToken.aud : [accessToken.aud];
  const [audience] = audiences;
  if (audiences.length !== 1 || typeof audience !== 'string') return undefined;
  const target = mcpTargetOfResource(deps.resources, audience);
  if (!target) return undefined;
  const owner = ownerOfSubject(accessToken.accountId);
  if (!owner) return undefined;
  deps.usage.record(owner.accountId, accessToken.grantId, deps.now());
  const scopes = requestedScopes(accessToken.scope);
  return {
    accountId: owner.accountId,
    userId: owner.userId,
    actor: { kind: 'oauth', id: accessToken.grantId },
    credential: {
      kind: 'oauth',
      id: accessToken.grantId,
      expiresAt: new Date(accessToken.exp * 1000),
    },
    scopes,
    permissions: permissionsOfScopes(scopes, target.space),
    resource: target.path,
  };
}

/** The grant's expiry, or undefined once it has ended (for what its tokens opened). */
export async function grantStatus(
  deps: OAuthDeps,
  grantId: string,
): Promise<{ expiresAt: Date | null } | undefined> {
  return repo.grantExpiry(deps.db, grantId, new Date());
}

/** Expired records removed per statement: each statement stays short. */
const EXPIRED_BATCH = 5_000;

/**
 * Removes every record that has expired (interactions, codes, tokens,
 * consent proofs), in batches of EXPIRED_BATCH until none is left: however
 * many authorization requests were started since the last run, none
 * outlives the next one. Returns how many went.
 */
export async function removeExpiredRecords(deps: OAuthDeps): Promise<number> {
  const now = new Date();
  let total = 0;
  for (;;) {
    const removed = await repo.deleteExpiredModels(deps.db, now, EXPIRED_BATCH);
    total += removed;
    if (removed < EXPIRED_BATCH) return total;
  }
}

export const createOAuthService = (deps: OAuthDeps) =>
  bindService(deps, {
    removeExpiredRecords,
    interactionDetails,
    interactionApp,
    decideInteraction,
    takeConsentProof,
    listGrants,
    revokeGrant,
    revokeUserGrants,
    endSpaceGrants,
    authenticateAccessToken,
    grantStatus,
  });

export type OAuthService = ReturnType<typeof createOAuthService> & {
  /** The authorization server itself (its Koa app), mounted by the routes; created on first use. */
  provider: () => Promise<Provider>;
  issuer: string;
};
