/**
 * Bytes each account stores, kept in the same transaction as every graph
 * write by statement-level triggers with transition tables: one UPDATE per
 * statement whatever its row count, so batch writes stay set-based, and every
 * path (cascading deletes included) is counted without the services having to
 * remember. A row counts its text plus a fixed overhead (entity 200 bytes,
 * observation and relation 100), so millions of tiny rows count too. The
 * plan's storage limit is checked against it before commit (graph.service `write`).
 */
export const sql = /* sql */ `
  alter table accounts add column stored_bytes bigint not null default 0;

  create function entities_stored_bytes() returns trigger language plpgsql as $$
  begin
    if tg_op in ('INSERT', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) as bytes from new_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes - d.bytes
        from (select account_id, sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) as bytes from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create function observations_stored_bytes() returns trigger language plpgsql as $$
  begin
    if tg_op in ('INSERT', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0)) as bytes from new_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes - d.bytes
        from (select account_id, sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0)) as bytes from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create function relations_stored_bytes() returns trigger language plpgsql as $$
  begin
    if tg_op in ('INSERT', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(100 + octet_length(type)) as bytes from new_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes - d.bytes
        from (select account_id, sum(100 + octet_length(type)) as bytes from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  create trigger entities_bytes_insert after insert on entities
    referencing new table as new_rows for each statement execute function entities_stored_bytes();
  create trigger entities_bytes_update after update on entities
    referencing old table as old_rows new table as new_rows for each statement execute function entities_stored_bytes();
  create trigger entities_bytes_delete after delete on entities
    referencing old table as old_rows for each statement execute function entities_stored_bytes();
  create trigger observations_bytes_insert after insert on observations
    referencing new table as new_rows for each statement execute function observations_stored_bytes();
  create trigger observations_bytes_update after update on observations
    referencing old table as old_rows new table as new_rows for each statement execute function observations_stored_bytes();
  create trigger observations_bytes_delete after delete on observations
    referencing old table as old_rows for each statement execute function observations_stored_bytes();
  create trigger relations_bytes_insert after insert on relations
    referencing new table as new_rows for each statement execute function relations_stored_bytes();
  create trigger relations_bytes_update after update on relations
    referencing old table as old_rows new table as new_rows for each statement execute function relations_stored_bytes();
  create trigger relations_bytes_delete after delete on relations
    referencing old table as old_rows for each statement execute function relations_stored_bytes();

  update accounts set stored_bytes =
      coalesce((select sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) from entities x where x.account_id = accounts.id), 0)
    + coalesce((select sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0)) from observations x where x.account_id = accounts.id), 0)
    + coalesce((select sum(100 + octet_length(type)) from relations x where x.account_id = accounts.id), 0);
`;
