/**
 * Query keys of the Members screen. Members and invitations change by this
 * screen's own acts (never by a graph event), so they sit under
 * `['members']`, apart from the live graph keys. The account they belong to
 * is not in the key: switching account empties the whole cache (lib/account).
 */
export const memberKeys = {
  all: ['members'] as const,
  list: ['members', 'list'] as const,
};
