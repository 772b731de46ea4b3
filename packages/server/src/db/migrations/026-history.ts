/**
 * History (issue 39, decision 027, docs/history.md): what the graph was at
 * any change in the plan's retention window.
 *
 * - `graph_history`: one row per graph row a call changed — its image before
 *   the call (`before`, null when the call created it), keyed by the call's
 *   first change-log seq. The present tables stay as they are, so reading
 *   the present costs what it did; the graph as of seq S is the present with
 *   every row changed after S put back as its earliest later row says it was.
 *   Statement-level triggers write it, so every path (cascading deletes
 *   included) is recorded. They record only inside a graph write, which names
 *   its seq in the transaction setting `engram.call_seq` (a purge of a deleted
 *   account or space writes no history). A row changed twice in one call keeps
 *   its first image (its state before the call).
 * - `graph_calls`: one row per write call — its seq range, space, actor and
 *   time, the call it reverted and the one that reverted it: what revert,
 *   `undo_last` and the history's pages read.
 * - Observations and relations get `valid_from` / `valid_to`: when the fact
 *   held in the world, as the writer says (not when Engram learned it).
 * - `accounts.history_bytes`: the part of `stored_bytes` history holds (a
 *   write that only moves rows into history does not grow the account);
 *   `history_seq` / `history_at`: history is complete after this seq and
 *   time (raised by compaction; at this migration, every account's present).
 */
export const sql = /* sql */ `
  alter table observations add column valid_from timestamptz, add column valid_to timestamptz;
  alter table relations add column valid_from timestamptz, add column valid_to timestamptz;

  alter table accounts
    add column history_bytes bigint not null default 0,
    add column history_seq bigint not null default 0,
    add column history_at timestamptz;
  update accounts set history_seq = event_seq, history_at = now() where event_seq > 0;

  create table graph_history (
    space_id uuid not null,
    seq bigint not null,
    kind "char" not null,
    row_id uuid not null,
    entity_id uuid not null,
    other_id uuid,
    before json,
    bytes integer not null,
    primary key (space_id, row_id, seq)
  );
  create index graph_history_by_seq on graph_history (space_id, seq);
  create index graph_history_by_entity on graph_history (space_id, entity_id, seq);
  create index graph_history_by_other on graph_history (space_id, other_id, seq) where other_id is not null;

  create table graph_calls (
    account_id uuid not null,
    seq bigint not null,
    last_seq bigint not null,
    space_id uuid not null,
    actor jsonb not null,
    at timestamptz not null,
    reverts bigint,
    reverted_by bigint,
    primary key (account_id, seq)
  );
  create index graph_calls_by_space on graph_calls (space_id, seq);

  create function history_call_seq() returns bigint language sql stable as $$
    select nullif(current_setting('engram.call_seq', true), '')::bigint
  $$;

  -- A row's image as history keeps it (json: metadata keeps its keys' order).
  create function entity_image(o entities) returns json language sql stable as $$
    select json_build_object('name', o.name, 'type', o.type, 'metadata', o.metadata,
      'ordinal', o.ordinal, 'created_at', o.created_at, 'updated_at', o.updated_at)
  $$;
  create function observation_image(o observations) returns json language sql stable as $$
    select json_build_object('entity_id', o.entity_id, 'content', o.content, 'metadata', o.metadata,
      'position', o.position, 'created_at', o.created_at,
      'valid_from', o.valid_from, 'valid_to', o.valid_to)
  $$;
  create function relation_image(o relations) returns json language sql stable as $$
    select json_build_object('from_id', o.from_id, 'to_id', o.to_id, 'type', o.type,
      'ordinal', o.ordinal, 'created_at', o.created_at,
      'valid_from', o.valid_from, 'valid_to', o.valid_to)
  $$;

  create function entities_history() returns trigger language plpgsql as $$
  declare call bigint := history_call_seq();
  begin
    if call is null then return null; end if;
    if tg_op = 'INSERT' then
      insert into graph_history (space_id, seq, kind, row_id, entity_id, before, bytes)
      select space_id, call, 'e', id, id, null, 64 from new_rows
      on conflict do nothing;
    elsif tg_op = 'UPDATE' then
      insert into graph_history (space_id, seq, kind, row_id, entity_id, before, bytes)
      select o.space_id, call, 'e', o.id, o.id, i.image, 64 + octet_length(i.image::text)
        from old_rows o join new_rows n on n.space_id = o.space_id and n.id = o.id
        cross join lateral (select entity_image(o) as image) i
       where o.name <> n.name or o.type <> n.type or o.metadata::text <> n.metadata::text
      on conflict do nothing;
    else
      insert into graph_history (space_id, seq, kind, row_id, entity_id, before, bytes)
      select o.space_id, call, 'e', o.id, o.id, i.image, 64 + octet_length(i.image::text)
        from old_rows o
        cross join lateral (select entity_image(o) as image) i
      on conflict do nothing;
    end if;
    return null;
  end $$;

  create function observations_history() returns trigger language plpgsql as $$
  declare call bigint := history_call_seq();
  begin
    if call is null then return null; end if;
    if tg_op = 'INSERT' then
      insert into graph_history (space_id, seq, kind, row_id, entity_id, before, bytes)
      select space_id, call, 'o', id, entity_id, null, 64 from new_rows
      on conflict do nothing;
    elsif tg_op = 'UPDATE' then
      insert into graph_history (space_id, seq, kind, row_id, entity_id, before, bytes)
      select o.space_id, call, 'o', o.id, o.entity_id, i.image, 64 + octet_length(i.image::text)
        from old_rows o join new_rows n on n.space_id = o.space_id and n.id = o.id
        cross join lateral (select observation_image(o) as image) i
       where n.content <> o.content or n.position <> o.position
          or n.metadata::text is distinct from o.metadata::text
          or n.valid_from is distinct from o.valid_from or n.valid_to is distinct from o.valid_to
      on conflict do nothing;
    else
      insert into graph_history (space_id, seq, kind, row_id, entity_id, before, bytes)
      select o.space_id, call, 'o', o.id, o.entity_id, i.image, 64 + octet_length(i.image::text)
        from old_rows o cross join lateral (select observation_image(o) as image) i
      on conflict do nothing;
    end if;
    return null;
  end $$;

  create function relations_history() returns trigger language plpgsql as $$
  declare call bigint := history_call_seq();
  begin
    if call is null then return null; end if;
    if tg_op = 'INSERT' then
      insert into graph_history (space_id, seq, kind, row_id, entity_id, other_id, before, bytes)
      select space_id, call, 'r', id, from_id, to_id, null, 64 from new_rows
      on conflict do nothing;
    elsif tg_op = 'UPDATE' then
      insert into graph_history (space_id, seq, kind, row_id, entity_id, other_id, before, bytes)
      select o.space_id, call, 'r', o.id, o.from_id, o.to_id, i.image, 64 + octet_length(i.image::text)
        from old_rows o join new_rows n on n.space_id = o.space_id and n.id = o.id
        cross join lateral (select relation_image(o) as image) i
       where n.type <> o.type or n.valid_from is distinct from o.valid_from
          or n.valid_to is distinct from o.valid_to
      on conflict do nothing;
    else
      insert into graph_history (space_id, seq, kind, row_id, entity_id, other_id, before, bytes)
      select o.space_id, call, 'r', o.id, o.from_id, o.to_id, i.image, 64 + octet_length(i.image::text)
        from old_rows o cross join lateral (select relation_image(o) as image) i
      on conflict do nothing;
    end if;
    return null;
  end $$;

  create trigger entities_history_insert after insert on entities
    referencing new table as new_rows for each statement execute function entities_history();
  create trigger entities_history_update after update on entities
    referencing old table as old_rows new table as new_rows for each statement execute function entities_history();
  create trigger entities_history_delete after delete on entities
    referencing old table as old_rows for each statement execute function entities_history();
  create trigger observations_history_insert after insert on observations
    referencing new table as new_rows for each statement execute function observations_history();
  create trigger observations_history_update after update on observations
    referencing old table as old_rows new table as new_rows for each statement execute function observations_history();
  create trigger observations_history_delete after delete on observations
    referencing old table as old_rows for each statement execute function observations_history();
  create trigger relations_history_insert after insert on relations
    referencing new table as new_rows for each statement execute function relations_history();
  create trigger relations_history_update after update on relations
    referencing old table as old_rows new table as new_rows for each statement execute function relations_history();
  create trigger relations_history_delete after delete on relations
    referencing old table as old_rows for each statement execute function relations_history();

  -- What history holds counts toward the account's storage, as its part.
  create function graph_history_bytes() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes, history_bytes = a.history_bytes + d.bytes
        from (select s.account_id, sum(n.bytes) as bytes from new_rows n join spaces s on s.id = n.space_id
               group by s.account_id) d
       where a.id = d.account_id;
    else
      update accounts a set stored_bytes = a.stored_bytes - d.bytes, history_bytes = a.history_bytes - d.bytes
        from (select s.account_id, sum(o.bytes) as bytes from old_rows o join spaces s on s.id = o.space_id
               group by s.account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;
  create trigger graph_history_bytes_insert after insert on graph_history
    referencing new table as new_rows for each statement execute function graph_history_bytes();
  create trigger graph_history_bytes_delete after delete on graph_history
    referencing old table as old_rows for each statement execute function graph_history_bytes();
`;
