/**
 * Subscription events are applied from the provider's state, read again for
 * each event, instead of the event's own copy ordered by its timestamp (the
 * provider's timestamps are whole seconds: two events of one second could
 * apply in the wrong order; issue 31, docs/security.md "Plans").
 *
 * - `billing_provider_reads`: each read of the provider takes the next number
 *   before it starts, so a higher number saw at least as new a state. One
 *   sequence serves every node.
 * - `subscriptions.provider_read_seq`: the number of the read last applied;
 *   a slower read that began earlier, finishing after it, changes nothing.
 *   It replaces `provider_synced_at` (the event timestamp last applied).
 */
export const sql = /* sql */ `
  create sequence billing_provider_reads;
  alter table subscriptions add column provider_read_seq bigint not null default 0;
  alter table subscriptions drop column provider_synced_at;
`;
