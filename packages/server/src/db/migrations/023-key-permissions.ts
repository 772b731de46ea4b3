/**
 * Scoped API keys (memory spaces): each key keeps the permissions it was
 * created with (`spaces:*:read`, `space:<slug>:write`…, packages/shared
 * spaces.ts), normalized. An empty list is the account's full access, so
 * every key made before this migration keeps what it had.
 */
export const sql = /* sql */ `
  alter table api_keys add column permissions text[] not null default '{}';
`;
