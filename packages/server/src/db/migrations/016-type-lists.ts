/**
 * Type lists read a page, not every type (issue 31, finding 4).
 *
 * - `relation_type_counts`: relations per type, like `entity_type_counts`,
 *   kept by a statement-level trigger with transition tables (one upsert per
 *   statement and type, whatever its row count; cascading and batch deletes
 *   included). `GET /api/relations/types` used to group every relation of the
 *   account on each call.
 * - On both counts tables, `(account_id, count desc, type)` serves the lists'
 *   order (most common first, then by name) and their cursor, so a page reads
 *   its own rows only; `(account_id, lower(type) text_pattern_ops)` serves a
 *   case-insensitive prefix search (`lower(type) like 'pre%'`) in any collation.
 */
export const sql = /* sql */ `
  create table relation_type_counts (
    account_id uuid not null references accounts (id) on delete cascade,
    type text not null,
    count integer not null,
    primary key (account_id, type)
  );

  create function relations_type_counts() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into relation_type_counts (account_id, type, count)
      select account_id, type, count(*) from new_rows group by 1, 2
      on conflict (account_id, type) do update set count = relation_type_counts.count + excluded.count;
      return null;
    end if;
    if tg_op = 'UPDATE' then
      -- Only types whose count changed: an update that keeps the type writes nothing.
      insert into relation_type_counts (account_id, type, count)
      select account_id, type, sum(n) from (
        select account_id, type, 1 as n from new_rows
        union all
        select account_id, type, -1 from old_rows
      ) x group by 1, 2 having sum(n) <> 0
      on conflict (account_id, type) do update set count = relation_type_counts.count + excluded.count;
    else
      update relation_type_counts c set count = c.count - d.rows
        from (select account_id, type, count(*) as rows from old_rows group by 1, 2) d
       where c.account_id = d.account_id and c.type = d.type;
    end if;
    delete from relation_type_counts c
     using (select distinct account_id, type from old_rows) d
     where c.account_id = d.account_id and c.type = d.type and c.count <= 0;
    return null;
  end $$;

  create trigger relations_type_counts_insert after insert on relations
    referencing new table as new_rows for each statement execute function relations_type_counts();
  create trigger relations_type_counts_update after update on relations
    referencing old table as old_rows new table as new_rows for each statement execute function relations_type_counts();
  create trigger relations_type_counts_delete after delete on relations
    referencing old table as old_rows for each statement execute function relations_type_counts();

  insert into relation_type_counts (account_id, type, count)
  select account_id, type, count(*) from relations group by 1, 2;

  create index entity_type_counts_by_count on entity_type_counts (account_id, count desc, type);
  create index entity_type_counts_by_prefix on entity_type_counts (account_id, lower(type) text_pattern_ops);
  create index relation_type_counts_by_count on relation_type_counts (account_id, count desc, type);
  create index relation_type_counts_by_prefix on relation_type_counts (account_id, lower(type) text_pattern_ops);
`;
