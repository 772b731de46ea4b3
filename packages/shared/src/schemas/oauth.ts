import { z } from 'zod';

/**
 * The consent screen and Connected apps (OAuth 2.1 for /mcp: docs/connect.md).
 * A client's name, logo and site come from its own metadata and are not
 * verified: the screen shows them beside `redirectHost`, where the browser
 * will be sent, which is.
 */
export const oauthInteractionParams = z.object({ uid: z.string().min(1).max(200) });

export const oauthClient = z.object({
  id: z.string(),
  name: z.string(),
  logoUri: z.string().nullable(),
  clientUri: z.string().nullable(),
});
export type OAuthClient = z.infer<typeof oauthClient>;

export const oauthScope = z.object({ scope: z.string(), description: z.string() });

/** GET /api/oauth/interactions/:uid: what an application asks for. */
export const oauthInteraction = z.object({
  client: oauthClient.extend({ redirectHost: z.string() }),
  scopes: z.array(oauthScope),
  resource: z.string(),
  /** The space's slug when the resource is a space's own address (`/mcp/<slug>`). */
  space: z.string().optional(),
});
export type OAuthInteraction = z.infer<typeof oauthInteraction>;

/**
 * GET /api/oauth/interactions/:uid/app: which application a pending
 * authorization is for, told to the sign-in page before anyone signs in
 * (its name as it states it, and the host the browser would go back to).
 */
export const oauthInteractionApp = z.object({ name: z.string(), redirectHost: z.string() });
export type OAuthInteractionApp = z.infer<typeof oauthInteractionApp>;

/** POST /api/oauth/interactions/:uid */
export const oauthDecisionInput = z.object({ decision: z.enum(['allow', 'deny']) });
export type OAuthDecisionInput = z.infer<typeof oauthDecisionInput>;

/** Where the browser goes next: the authorization server, which ends at the application. */
export const oauthDecision = z.object({ redirectTo: z.string() });
export type OAuthDecision = z.infer<typeof oauthDecision>;

/** One application a person connected (Settings, Connected apps). */
export const oauthGrant = z.object({
  id: z.string(),
  client: oauthClient,
  scopes: z.array(z.string()),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type OAuthGrant = z.infer<typeof oauthGrant>;

/** GET /api/oauth/grants */
export const oauthGrantList = z.object({ grants: z.array(oauthGrant) });
export type OAuthGrantList = z.infer<typeof oauthGrantList>;
