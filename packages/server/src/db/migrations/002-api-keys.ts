/**
 * API keys. Account keys are created on the API Keys screen; each member's
 * personal key (kind 'personal') is derived from the instance secret and the
 * row id, so it can be shown again without ever being stored.
 */
export const sql = /* sql */ `
  create table instance_settings (
    name text primary key,
    value text not null
  );

  create table api_keys (
    account_id uuid not null references accounts (id) on delete cascade,
    id uuid not null default gen_random_uuid(),
    kind text not null check (kind in ('account', 'personal')),
    name text not null,
    key_hash text not null unique,
    key_preview text not null,
    created_by uuid not null references users (id) on delete cascade,
    expires_at timestamptz,
    rolled_from uuid,
    replaced_by uuid,
    last_used_at timestamptz,
    total_requests bigint not null default 0,
    created_at timestamptz not null default now(),
    primary key (account_id, id)
  );
  create index api_keys_by_account on api_keys (account_id, kind, created_at desc);
  create unique index api_keys_one_personal on api_keys (account_id, created_by) where kind = 'personal';

  create table api_key_usage_days (
    account_id uuid not null,
    key_id uuid not null,
    day date not null,
    requests integer not null,
    primary key (account_id, key_id, day),
    foreign key (account_id, key_id) references api_keys (account_id, id) on delete cascade
  );
`;
