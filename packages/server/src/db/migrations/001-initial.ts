/**
 * Accounts, people, sessions and the graph. Identity tables (accounts, users)
 * are global; every tenant table leads its keys and indexes with account_id so
 * Citus can distribute it on that column unchanged (decision 002).
 */
export const sql = /* sql */ `
    create extension if not exists pg_trgm;
    create extension if not exists btree_gin;

    create table accounts (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      event_seq bigint not null default 0,
      created_at timestamptz not null default now()
    );

    create table users (
      id uuid primary key default gen_random_uuid(),
      email text not null unique,
      password_hash text not null,
      first_name text not null,
      last_name text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table account_members (
      account_id uuid not null references accounts (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      role text not null check (role in ('owner', 'member')),
      created_at timestamptz not null default now(),
      primary key (account_id, user_id)
    );
    create index account_members_user on account_members (user_id);

    create table sessions (
      account_id uuid not null references accounts (id) on delete cascade,
      id uuid not null default gen_random_uuid(),
      user_id uuid not null references users (id) on delete cascade,
      token_hash text not null unique,
      expires_at timestamptz not null,
      created_at timestamptz not null default now(),
      primary key (account_id, id)
    );

    create table subscriptions (
      account_id uuid primary key references accounts (id) on delete cascade,
      plan_id text not null,
      status text not null,
      cancel_at_period_end boolean not null default false,
      current_period_end timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    -- Graph rows take clock_timestamp(), not now(), so rows written in one
    -- transaction show when each was written; \`ordinal\` orders rows created
    -- in the same instant (one multi-row insert) as they were given.
    create table entities (
      account_id uuid not null references accounts (id) on delete cascade,
      id uuid not null default gen_random_uuid(),
      ordinal bigint generated always as identity,
      name text not null,
      type text not null,
      metadata jsonb not null default '{}',
      degree integer not null default 0,
      observations_count integer not null default 0,
      created_at timestamptz not null default clock_timestamp(),
      updated_at timestamptz not null default clock_timestamp(),
      primary key (account_id, id),
      unique (account_id, name)
    );
    create index entities_by_ordinal on entities (account_id, ordinal);
    create index entities_by_type on entities (account_id, type);
    create index entities_by_degree on entities (account_id, degree desc, id);
    create index entities_name_lower on entities (account_id, lower(name) text_pattern_ops);
    create index entities_name_trgm on entities using gin (account_id, lower(name) gin_trgm_ops);

    create table observations (
      account_id uuid not null,
      id uuid not null default gen_random_uuid(),
      entity_id uuid not null,
      content text not null,
      metadata jsonb,
      position integer not null,
      created_at timestamptz not null default clock_timestamp(),
      primary key (account_id, id),
      foreign key (account_id, entity_id) references entities (account_id, id) on delete cascade
    );
    create index observations_by_entity on observations (account_id, entity_id, position);
    create index observations_content_trgm on observations using gin (account_id, lower(content) gin_trgm_ops);

    create table relations (
      account_id uuid not null,
      id uuid not null default gen_random_uuid(),
      ordinal bigint generated always as identity,
      from_id uuid not null,
      to_id uuid not null,
      type text not null,
      created_at timestamptz not null default clock_timestamp(),
      primary key (account_id, id),
      unique (account_id, from_id, to_id, type),
      foreign key (account_id, from_id) references entities (account_id, id) on delete cascade,
      foreign key (account_id, to_id) references entities (account_id, id) on delete cascade,
      check (from_id <> to_id)
    );
    create index relations_by_to on relations (account_id, to_id);
    create index relations_by_type on relations (account_id, type);
    create index relations_by_ordinal on relations (account_id, ordinal);

    -- Per-type entity counts, kept in the write transaction: the type filter's
    -- counts and search's "type matches" read this small table, not every entity.
    create table entity_type_counts (
      account_id uuid not null references accounts (id) on delete cascade,
      type text not null,
      count integer not null,
      primary key (account_id, type)
    );

    -- Append-only change log, written in the same transaction as the change.
    create table graph_events (
      account_id uuid not null references accounts (id) on delete cascade,
      seq bigint not null,
      type text not null,
      payload jsonb not null,
      actor jsonb not null,
      at timestamptz not null default now(),
      primary key (account_id, seq)
    );
`;
