/**
 * The change log is bounded and counted (issue 31, docs/security.md):
 *
 * - `graph_events.bytes`: what an event counts for in the account's
 *   `stored_bytes` (its type, payload and actor plus a fixed overhead), added
 *   by the write that appends it and taken off when it is compacted.
 * - `accounts.events_compacted_seq`: every event up to it was compacted; a
 *   client resuming from before it is told to resynchronise.
 * - `change_log_holds`: positions readers still need (one row per account and
 *   reader); compaction never passes the lowest.
 * - Events written before observation texts were cut to a preview are cut
 *   the same way, so the old log holds no more than a new one would.
 */
export const sql = /* sql */ `
  alter table graph_events add column bytes integer not null default 0;
  alter table accounts add column events_compacted_seq bigint not null default 0;

  create table change_log_holds (
    account_id uuid not null,
    reader text not null,
    seq bigint not null,
    updated_at timestamptz not null default now(),
    primary key (account_id, reader)
  );

  update graph_events e
     set payload = jsonb_set(e.payload, '{observations}', (
       select jsonb_agg(
                case when char_length(o ->> 'content') > 200
                     then o || jsonb_build_object(
                            'content', left(o ->> 'content', 200),
                            'length', char_length(o ->> 'content'),
                            'truncated', true)
                     else o end
                order by n)
         from jsonb_array_elements(e.payload -> 'observations') with ordinality as x(o, n)))
   where e.type = 'observation_added'
     and exists (select 1 from jsonb_array_elements(e.payload -> 'observations') o
                  where char_length(o ->> 'content') > 200);

  update graph_events
     set bytes = 64 + octet_length(type) + octet_length(payload::text) + octet_length(actor::text);

  update accounts a
     set stored_bytes = a.stored_bytes + s.bytes
    from (select account_id, sum(bytes) as bytes from graph_events group by account_id) s
   where a.id = s.account_id;
`;
