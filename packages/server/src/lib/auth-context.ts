import type { Role } from '@engram/shared';

/** Who is acting, recorded with every change in the change log. */
export interface Actor {
  kind: 'user' | 'api_key' | 'oauth';
  id: string;
}

/**
 * The credential a request was made with: a session token (a person), an
 * API key (an agent) or an OAuth access token (an agent a person connected;
 * `/mcp` only). Anything opened with it (a socket, an MCP session) belongs to
 * it and ends when it is revoked or expires.
 */
export interface Credential {
  kind: 'session' | 'api_key' | 'oauth';
  /** The session's or key's row id; for an OAuth token, its grant's id (revoking the grant ends every token). */
  id: string;
  expiresAt: Date | null;
}

/**
 * What a credential alone says (features/auth, keys, oauth): the person and
 * the account it was made in. The members service turns it into an
 * `AuthContext` once it knows the account the request acts in and the
 * person's role there.
 */
export type CredentialContext = Omit<AuthContext, 'role'>;

/**
 * What can be revoked and is announced to every node when it changes: a
 * credential, or a person's membership of an account (removed, or its role
 * changed: lib/membership-ref.ts).
 */
export interface RevocableRef {
  kind: Credential['kind'] | 'membership';
  id: string;
}

/** What an authenticated request (REST, MCP or WebSocket) acts as. */
export interface AuthContext {
  /** The account the request acts in (X-Engram-Account, else the credential's own). */
  accountId: string;
  userId: string;
  /**
   * The person's role in that account, read when the request arrived: an API
   * key or OAuth grant acts with its maker's role, never more.
   */
  role: Role;
  actor: Actor;
  credential: Credential;
  /**
   * What the credential may do (`memory:read`, `memory:write`): an OAuth
   * token's granted scopes. Absent, full access (session tokens, API keys).
   */
  scopes?: string[];
  /**
   * Which spaces the credential may read or write (`spaces:*:read`,
   * `space:<slug>:write`…, packages/shared spaces.ts): an API key's
   * `permissions`, or an OAuth token's scopes in those terms. Absent or
   * empty, full access (session tokens, personal keys, unscoped keys).
   */
  permissions?: readonly string[];
  /** The MCP path an OAuth token was issued for (`/mcp` or `/mcp/<slug>`, RFC 8707): accepted there only. */
  resource?: string;
  /**
   * The client the request named (a web app tab, CLIENT_ID_HEADER): the
   * events of its changes carry it, so that tab can tell them from changes
   * made elsewhere. Not proof of anything; absent when not named.
   */
  origin?: string;
}

/** A memory space a request acts in (migration 022): its id keys the graph's rows. */
export interface SpaceRef {
  id: string;
  slug: string;
}

/** A request acting on one space's graph: every graph call takes one. */
export interface SpaceAuth extends AuthContext {
  space: SpaceRef;
}
