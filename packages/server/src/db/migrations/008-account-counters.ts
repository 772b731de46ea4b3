/**
 * Counters the dashboard and the monthly plan limit read, so that no answer
 * counts an account's rows (issue 13).
 *
 * - Graph totals on the account row (entities, relations, observations),
 *   kept beside `stored_bytes` by statement-level triggers with transition
 *   tables: one UPDATE of the account row per statement, whatever its row
 *   count, and cascading deletes are counted too. The triggers of migration
 *   006 are replaced by these, which keep the bytes as before and the counts
 *   in the same UPDATE (the account row is already locked by the write).
 * - `graph_daily`: entities created per account and day (UTC, by their
 *   creation time, so a lossless import lands on the days it recorded), for
 *   the dashboard's recent activity.
 * - `usage_monthly`: the operations of each account and month. `count` is
 *   what `usage_daily` holds for the month (kept by triggers on it);
 *   `reserved` is what was admitted but not yet written there (metering
 *   aggregates in memory and flushes in batches). An operation is admitted by
 *   one conditional increment of `reserved` while `count + reserved` is below
 *   the plan's allowance, so the limit is exact across concurrent requests
 *   and across nodes; a flush moves its operations from `reserved` to
 *   `usage_daily` in one transaction, so the sum never jumps.
 */
export const sql = /* sql */ `
  alter table accounts
    add column entity_count bigint not null default 0,
    add column relation_count bigint not null default 0,
    add column observation_count bigint not null default 0;

  drop trigger entities_bytes_insert on entities;
  drop trigger entities_bytes_update on entities;
  drop trigger entities_bytes_delete on entities;
  drop trigger observations_bytes_insert on observations;
  drop trigger observations_bytes_update on observations;
  drop trigger observations_bytes_delete on observations;
  drop trigger relations_bytes_insert on relations;
  drop trigger relations_bytes_update on relations;
  drop trigger relations_bytes_delete on relations;
  drop function entities_stored_bytes();
  drop function observations_stored_bytes();
  drop function relations_stored_bytes();

  create table graph_daily (
    account_id uuid not null references accounts (id) on delete cascade,
    day date not null,
    entities_created integer not null,
    primary key (account_id, day)
  );

  -- Bytes a row counts for (migration 006): its text plus a fixed overhead.
  create function entities_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      update accounts a
         set stored_bytes = a.stored_bytes + d.bytes, entity_count = a.entity_count + d.rows
        from (select account_id, count(*) as rows,
                     sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) as bytes
                from new_rows group by account_id) d
       where a.id = d.account_id;
      insert into graph_daily (account_id, day, entities_created)
      select account_id, (created_at at time zone 'UTC')::date, count(*)
        from new_rows group by 1, 2
      on conflict (account_id, day)
        do update set entities_created = graph_daily.entities_created + excluded.entities_created;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(bytes) as bytes from (
                select account_id, 200 + octet_length(name) + octet_length(type) + octet_length(metadata::text) as bytes from new_rows
                union all
                select account_id, -(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) from old_rows
              ) x group by account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      update accounts a
         set stored_bytes = a.stored_bytes - d.bytes, entity_count = a.entity_count - d.rows
        from (select account_id, count(*) as rows,
                     sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) as bytes
                from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create function observations_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      update accounts a
         set stored_bytes = a.stored_bytes + d.bytes, observation_count = a.observation_count + d.rows
        from (select account_id, count(*) as rows,
                     sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0)) as bytes
                from new_rows group by account_id) d
       where a.id = d.account_id;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(bytes) as bytes from (
                select account_id, 100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) as bytes from new_rows
                union all
                select account_id, -(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0)) from old_rows
              ) x group by account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      update accounts a
         set stored_bytes = a.stored_bytes - d.bytes, observation_count = a.observation_count - d.rows
        from (select account_id, count(*) as rows,
                     sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0)) as bytes
                from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create function relations_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      update accounts a
         set stored_bytes = a.stored_bytes + d.bytes, relation_count = a.relation_count + d.rows
        from (select account_id, count(*) as rows, sum(100 + octet_length(type)) as bytes
                from new_rows group by account_id) d
       where a.id = d.account_id;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(bytes) as bytes from (
                select account_id, 100 + octet_length(type) as bytes from new_rows
                union all
                select account_id, -(100 + octet_length(type)) from old_rows
              ) x group by account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      update accounts a
         set stored_bytes = a.stored_bytes - d.bytes, relation_count = a.relation_count - d.rows
        from (select account_id, count(*) as rows, sum(100 + octet_length(type)) as bytes
                from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create trigger entities_totals_insert after insert on entities
    referencing new table as new_rows for each statement execute function entities_account_totals();
  create trigger entities_totals_update after update on entities
    referencing old table as old_rows new table as new_rows for each statement execute function entities_account_totals();
  create trigger entities_totals_delete after delete on entities
    referencing old table as old_rows for each statement execute function entities_account_totals();
  create trigger observations_totals_insert after insert on observations
    referencing new table as new_rows for each statement execute function observations_account_totals();
  create trigger observations_totals_update after update on observations
    referencing old table as old_rows new table as new_rows for each statement execute function observations_account_totals();
  create trigger observations_totals_delete after delete on observations
    referencing old table as old_rows for each statement execute function observations_account_totals();
  create trigger relations_totals_insert after insert on relations
    referencing new table as new_rows for each statement execute function relations_account_totals();
  create trigger relations_totals_update after update on relations
    referencing old table as old_rows new table as new_rows for each statement execute function relations_account_totals();
  create trigger relations_totals_delete after delete on relations
    referencing old table as old_rows for each statement execute function relations_account_totals();

  update accounts set
    entity_count = (select count(*) from entities x where x.account_id = accounts.id),
    observation_count = (select count(*) from observations x where x.account_id = accounts.id),
    relation_count = (select count(*) from relations x where x.account_id = accounts.id);
  insert into graph_daily (account_id, day, entities_created)
  select account_id, (created_at at time zone 'UTC')::date, count(*) from entities group by 1, 2;

  create table usage_monthly (
    account_id uuid not null references accounts (id) on delete cascade,
    month date not null,
    count bigint not null default 0,
    reserved bigint not null default 0,
    primary key (account_id, month)
  );

  -- The first day of the month of a date, without the session's time zone.
  create function usage_daily_monthly() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into usage_monthly (account_id, month, count)
      select account_id, day - (extract(day from day)::int - 1), sum(count)
        from new_rows group by 1, 2
      on conflict (account_id, month) do update set count = usage_monthly.count + excluded.count;
    elsif tg_op = 'UPDATE' then
      insert into usage_monthly (account_id, month, count)
      select account_id, month, sum(count) from (
        select account_id, day - (extract(day from day)::int - 1) as month, count from new_rows
        union all
        select account_id, day - (extract(day from day)::int - 1), -count from old_rows
      ) x group by 1, 2
      on conflict (account_id, month) do update set count = usage_monthly.count + excluded.count;
    else
      update usage_monthly m set count = m.count - d.count
        from (select account_id, day - (extract(day from day)::int - 1) as month, sum(count) as count
                from old_rows group by 1, 2) d
       where m.account_id = d.account_id and m.month = d.month;
    end if;
    return null;
  end $$;

  create trigger usage_daily_monthly_insert after insert on usage_daily
    referencing new table as new_rows for each statement execute function usage_daily_monthly();
  create trigger usage_daily_monthly_update after update on usage_daily
    referencing old table as old_rows new table as new_rows for each statement execute function usage_daily_monthly();
  create trigger usage_daily_monthly_delete after delete on usage_daily
    referencing old table as old_rows for each statement execute function usage_daily_monthly();

  insert into usage_monthly (account_id, month, count)
  select account_id, day - (extract(day from day)::int - 1), sum(count) from usage_daily group by 1, 2;
`;
