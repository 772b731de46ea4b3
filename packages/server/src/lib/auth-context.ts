/** Who is acting, recorded with every change in the change log. */
export interface Actor {
  kind: 'user' | 'api_key';
  id: string;
}

/** What an authenticated request (REST, MCP or WebSocket) acts as. */
export interface AuthContext {
  accountId: string;
  userId: string;
  actor: Actor;
  /** Set when a session token (not an API key) authenticated the request. */
  sessionId?: string;
}
