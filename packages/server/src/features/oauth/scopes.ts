import type { AuthContext } from '../../lib/auth-context.js';

/** What an OAuth client may be granted on `/mcp`. */
export const MEMORY_READ = 'memory:read';
export const MEMORY_WRITE = 'memory:write';
export type MemoryScope = typeof MEMORY_READ | typeof MEMORY_WRITE;
export const MEMORY_SCOPES: readonly MemoryScope[] = [MEMORY_READ, MEMORY_WRITE];

/** What the consent screen says each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<MemoryScope, string> = {
  [MEMORY_READ]:
    'Read your memory: search entities, observations and relations, and follow changes',
  [MEMORY_WRITE]:
    'Change your memory: create, update and delete entities, observations and relations',
};

export function isMemoryScope(scope: string): scope is MemoryScope {
  return (MEMORY_SCOPES as readonly string[]).includes(scope);
}

/**
 * The scope a request lacks for an act that `needs` it, or undefined when it
 * may go ahead. Credentials without scopes (session tokens, API keys) have
 * full access; an OAuth access token has exactly the scopes granted to it.
 */
export function missingScope(auth: AuthContext, needs: MemoryScope): string | undefined {
  if (auth.scopes === undefined) return undefined;
  return auth.scopes.includes(needs) ? undefined : needs;
}
