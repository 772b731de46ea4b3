/**
 * Memory spaces (issue 36, decision 023): separate graphs inside an account.
 *
 * - `spaces`: one row per space, its slug unique in the account, its counts
 *   kept beside the account's by the same statement-level triggers. Every
 *   account has a `default` space whose id is the account's id, made by a
 *   trigger when the account row is inserted — so the graph rows written
 *   before spaces existed are already in it, and a request that names no
 *   space needs no lookup.
 * - The graph tables' `account_id` becomes `space_id` (a rename: no row is
 *   rewritten, every index and key keeps its shape, now led by the space).
 *   Their rows reach the account through `spaces`; the triggers that keep the
 *   account's counters join it once per statement.
 * - `graph_events` stays the account's log (one gap-free seq per account, what
 *   realtime, webhooks and history read) and records each event's space.
 * - `spaces.deleted_at`: a deleted space disappears at once and its rows are
 *   purged in the background, like a deleted account's (migration 014).
 */
export const sql = /* sql */ `
  create table spaces (
    id uuid primary key default gen_random_uuid(),
    account_id uuid not null references accounts (id) on delete cascade,
    slug text not null,
    name text not null,
    entity_count bigint not null default 0,
    relation_count bigint not null default 0,
    observation_count bigint not null default 0,
    deleted_at timestamptz,
    created_at timestamptz not null default now(),
    unique (account_id, slug)
  );
  create index spaces_being_deleted on spaces (deleted_at) where deleted_at is not null;

  insert into spaces (id, account_id, slug, name, entity_count, relation_count, observation_count, created_at)
  select id, id, 'default', 'Default', entity_count, relation_count, observation_count, created_at
    from accounts;

  create function accounts_default_space() returns trigger language plpgsql as $$
  begin
    insert into spaces (id, account_id, slug, name) values (new.id, new.id, 'default', 'Default');
    return null;
  end $$;
  create trigger accounts_default_space after insert on accounts
    for each row execute function accounts_default_space();

  alter table entities rename column account_id to space_id;
  alter table observations rename column account_id to space_id;
  alter table relations rename column account_id to space_id;
  alter table entity_degrees rename column account_id to space_id;
  alter table entity_type_counts rename column account_id to space_id;
  alter table relation_type_counts rename column account_id to space_id;
  alter table observation_embeddings rename column account_id to space_id;
  alter table entity_type_counts drop constraint if exists entity_type_counts_account_id_fkey;
  alter table relation_type_counts drop constraint if exists relation_type_counts_account_id_fkey;
  alter table observation_embeddings drop constraint if exists observation_embeddings_account_id_fkey;

  alter table graph_events add column space_id uuid;
  update graph_events set space_id = account_id;
  alter table graph_events alter column space_id set not null;

  -- The counters' triggers (migrations 008, 016, 018, 019), keyed by space:
  -- each statement updates its spaces, then their accounts, once.
  create or replace function entities_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      with d as (
        select space_id, count(*) as rows,
               sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) as bytes
          from new_rows group by space_id
      ), s as (
        update spaces s set entity_count = s.entity_count + d.rows
          from d where s.id = d.space_id
        returning s.account_id, d.rows, d.bytes
      )
      update accounts a
         set stored_bytes = a.stored_bytes + t.bytes, entity_count = a.entity_count + t.rows
        from (select account_id, sum(rows) as rows, sum(bytes) as bytes from s group by account_id) t
       where a.id = t.account_id;
      insert into graph_daily (account_id, day, entities_created)
      select s.account_id, (n.created_at at time zone 'UTC')::date, count(*)
        from new_rows n join spaces s on s.id = n.space_id group by 1, 2
      on conflict (account_id, day)
        do update set entities_created = graph_daily.entities_created + excluded.entities_created;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select s.account_id, sum(x.bytes) as bytes from (
                select space_id, 200 + octet_length(name) + octet_length(type) + octet_length(metadata::text) as bytes from new_rows
                union all
                select space_id, -(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) from old_rows
              ) x join spaces s on s.id = x.space_id group by s.account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      with d as (
        select space_id, count(*) as rows,
               sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) as bytes
          from old_rows group by space_id
      ), s as (
        update spaces s set entity_count = s.entity_count - d.rows
          from d where s.id = d.space_id
        returning s.account_id, d.rows, d.bytes
      )
      update accounts a
         set stored_bytes = a.stored_bytes - t.bytes, entity_count = a.entity_count - t.rows
        from (select account_id, sum(rows) as rows, sum(bytes) as bytes from s group by account_id) t
       where a.id = t.account_id;
    end if;
    return null;
  end $$;

  create or replace function observations_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      with d as (
        select space_id, count(*) as rows,
               sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) as bytes
          from new_rows group by space_id
      ), s as (
        update spaces s set observation_count = s.observation_count + d.rows
          from d where s.id = d.space_id
        returning s.account_id, d.rows, d.bytes
      )
      update accounts a
         set stored_bytes = a.stored_bytes + t.bytes, observation_count = a.observation_count + t.rows
        from (select account_id, sum(rows) as rows, sum(bytes) as bytes from s group by account_id) t
       where a.id = t.account_id;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select s.account_id, sum(x.bytes) as bytes from (
                select space_id, 100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms) as bytes from new_rows
                union all
                select space_id, -(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) from old_rows
              ) x join spaces s on s.id = x.space_id group by s.account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      with d as (
        select space_id, count(*) as rows,
               sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) as bytes
          from old_rows group by space_id
      ), s as (
        update spaces s set observation_count = s.observation_count - d.rows
          from d where s.id = d.space_id
        returning s.account_id, d.rows, d.bytes
      )
      update accounts a
         set stored_bytes = a.stored_bytes - t.bytes, observation_count = a.observation_count - t.rows
        from (select account_id, sum(rows) as rows, sum(bytes) as bytes from s group by account_id) t
       where a.id = t.account_id;
    end if;
    return null;
  end $$;

  create or replace function relations_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      with d as (
        select space_id, count(*) as rows, sum(100 + octet_length(type)) as bytes
          from new_rows group by space_id
      ), s as (
        update spaces s set relation_count = s.relation_count + d.rows
          from d where s.id = d.space_id
        returning s.account_id, d.rows, d.bytes
      )
      update accounts a
         set stored_bytes = a.stored_bytes + t.bytes, relation_count = a.relation_count + t.rows
        from (select account_id, sum(rows) as rows, sum(bytes) as bytes from s group by account_id) t
       where a.id = t.account_id;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select s.account_id, sum(x.bytes) as bytes from (
                select space_id, 100 + octet_length(type) as bytes from new_rows
                union all
                select space_id, -(100 + octet_length(type)) from old_rows
              ) x join spaces s on s.id = x.space_id group by s.account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      with d as (
        select space_id, count(*) as rows, sum(100 + octet_length(type)) as bytes
          from old_rows group by space_id
      ), s as (
        update spaces s set relation_count = s.relation_count - d.rows
          from d where s.id = d.space_id
        returning s.account_id, d.rows, d.bytes
      )
      update accounts a
         set stored_bytes = a.stored_bytes - t.bytes, relation_count = a.relation_count - t.rows
        from (select account_id, sum(rows) as rows, sum(bytes) as bytes from s group by account_id) t
       where a.id = t.account_id;
    end if;
    return null;
  end $$;

  create or replace function relations_type_counts() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into relation_type_counts (space_id, type, count)
      select space_id, type, count(*) from new_rows group by 1, 2
      on conflict (space_id, type) do update set count = relation_type_counts.count + excluded.count;
      return null;
    end if;
    if tg_op = 'UPDATE' then
      insert into relation_type_counts (space_id, type, count)
      select space_id, type, sum(n) from (
        select space_id, type, 1 as n from new_rows
        union all
        select space_id, type, -1 from old_rows
      ) x group by 1, 2 having sum(n) <> 0
      on conflict (space_id, type) do update set count = relation_type_counts.count + excluded.count;
    else
      update relation_type_counts c set count = c.count - d.rows
        from (select space_id, type, count(*) as rows from old_rows group by 1, 2) d
       where c.space_id = d.space_id and c.type = d.type;
    end if;
    delete from relation_type_counts c
     using (select distinct space_id, type from old_rows) d
     where c.space_id = d.space_id and c.type = d.type and c.count <= 0;
    return null;
  end $$;

  create or replace function observation_embeddings_counted() returns trigger language plpgsql as $$
  begin
    if tg_op in ('INSERT', 'UPDATE') then
      with d as (
        select s.account_id, count(*) as n, sum(100 + octet_length(n.vector)) as bytes
          from new_rows n join spaces s on s.id = n.space_id group by s.account_id
      ), a as (
        update accounts a set stored_bytes = a.stored_bytes + d.bytes from d where a.id = d.account_id
      )
      update embedding_state e set vectors = e.vectors + d.n from d where e.account_id = d.account_id;
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
      with d as (
        select s.account_id, count(*) as n, sum(100 + octet_length(o.vector)) as bytes
          from old_rows o join spaces s on s.id = o.space_id group by s.account_id
      ), a as (
        update accounts a set stored_bytes = a.stored_bytes - d.bytes from d where a.id = d.account_id
      )
      update embedding_state e set vectors = e.vectors - d.n from d where e.account_id = d.account_id;
    end if;
    return null;
  end $$;
`;
