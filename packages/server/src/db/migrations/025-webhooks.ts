/**
 * Outbound webhooks (features/webhooks, docs/webhooks.md).
 *
 * - `webhook_endpoints`: an account's endpoints, each hearing one space
 *   (`space_id`; it goes when the space's row is purged) or all of them
 *   (null). `delivered_seq` is how far
 *   the account's change log has been consumed for the endpoint: its events
 *   are read from the log (the outbox every graph write already appends to,
 *   in the write's own transaction), so nothing is queued inside a write and
 *   nothing is lost to a crash — after a restart delivery resumes after
 *   `delivered_seq`. A hold in `change_log_holds` (reader `webhook:<id>`)
 *   keeps compaction from passing it while the endpoint is enabled.
 *   `lease_holder`/`lease_until`: the one node delivering to the endpoint
 *   now, so two nodes never send the same event and order is kept.
 *   `retry_at`: when its head event is tried again after a failure;
 *   `failing_since`: when its current run of failures began (a day of them
 *   disables it, with `disabled_reason`). `previous_secret` signs beside the
 *   new one until `previous_secret_until` after a rotation.
 * - `webhook_deliveries`: the log a person reads — one row per event and
 *   endpoint (its attempts counted on it), and one per test send or
 *   redelivery (`manual`). Only an excerpt of an answer's body is kept;
 *   successful rows go after 7 days, the others after 30. Each row counts
 *   toward `accounts.stored_bytes` (200 bytes and its texts), kept by
 *   statement-level triggers like migration 019's: the dispatcher's own
 *   statements pay for them, never a graph write.
 */
export const sql = /* sql */ `
  create table webhook_endpoints (
    id uuid primary key default gen_random_uuid(),
    account_id uuid not null references accounts (id) on delete cascade,
    space_id uuid references spaces (id) on delete cascade,
    url text not null,
    events text[] not null,
    description text,
    secret text not null,
    previous_secret text,
    previous_secret_until timestamptz,
    enabled boolean not null default true,
    disabled_reason text,
    delivered_seq bigint not null,
    retry_at timestamptz,
    failing_since timestamptz,
    lease_holder uuid,
    lease_until timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  );
  create index webhook_endpoints_by_account on webhook_endpoints (account_id, created_at, id);
  create index webhook_endpoints_enabled on webhook_endpoints (account_id) where enabled;

  create table webhook_deliveries (
    id uuid primary key default gen_random_uuid(),
    account_id uuid not null references accounts (id) on delete cascade,
    endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
    event_id text not null,
    event_type text not null,
    seq bigint,
    status text not null check (status in ('pending', 'retrying', 'succeeded', 'failed')),
    attempt integer not null default 0,
    status_code integer,
    duration_ms integer,
    error text,
    response_excerpt text,
    next_retry_at timestamptz,
    manual boolean not null default false,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  );
  create index webhook_deliveries_by_endpoint
    on webhook_deliveries (account_id, endpoint_id, created_at desc, id desc);
  create unique index webhook_deliveries_per_event
    on webhook_deliveries (endpoint_id, seq) where not manual;
  create index webhook_deliveries_by_age on webhook_deliveries (created_at);

  create function webhook_delivery_bytes(d webhook_deliveries) returns bigint
    language sql immutable as $$
      select 200 + octet_length(d.event_id) + octet_length(d.event_type)
             + coalesce(octet_length(d.error), 0) + coalesce(octet_length(d.response_excerpt), 0)
    $$;

  create function webhook_deliveries_counted() returns trigger language plpgsql as $$
  begin
    if tg_op in ('INSERT', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(webhook_delivery_bytes(n)) as bytes from new_rows n group by account_id) d
       where a.id = d.account_id;
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes - d.bytes
        from (select account_id, sum(webhook_delivery_bytes(o)) as bytes from old_rows o group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create trigger webhook_deliveries_insert after insert on webhook_deliveries
    referencing new table as new_rows for each statement execute function webhook_deliveries_counted();
  create trigger webhook_deliveries_update after update on webhook_deliveries
    referencing old table as old_rows new table as new_rows for each statement execute function webhook_deliveries_counted();
  create trigger webhook_deliveries_delete after delete on webhook_deliveries
    referencing old table as old_rows for each statement execute function webhook_deliveries_counted();
`;
