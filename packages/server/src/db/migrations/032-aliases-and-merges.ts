/**
 * Aliases and merges (issue 59, docs/consolidation.md).
 *
 * - `entities.aliases`: the other names an entity goes by (a merge's sources'
 *   names, or given on the entity page). Every by-name door resolves them;
 *   the write path keeps an alias from being another entity's name or alias
 *   (a write holds its account's lock, so the check cannot race). Most
 *   entities have none, so the indexes hold only those that do: one to find
 *   an alias, one to list a space's entities that have any (search).
 * - History keeps aliases in an entity's image, and records an observation
 *   moved to another entity and a relation re-pointed (a merge does both):
 *   reverting a merge puts every row back where it was.
 * - Stored bytes count aliases.
 * - `observation_key`: what makes two observations of an entity the same
 *   (case, spacing and end punctuation aside), as `observationKey` in
 *   features/graph/graph.writes.ts says it: adding one the entity has is a
 *   no-op.
 */
export const sql = /* sql */ `
  alter table entities add column aliases text[] not null default '{}';
  create index entities_aliases on entities using gin (aliases) where aliases <> '{}';
  create index entities_with_aliases on entities (space_id) where aliases <> '{}';

  create function observation_key(content text) returns text language sql immutable parallel safe as $$
    select regexp_replace(btrim(regexp_replace(lower(content), '\\s+', ' ', 'g'), ' '),
                          '[\\s.,;:!?…]+$', '')
  $$;

  create function entity_bytes(e entities) returns bigint language sql immutable as $$
    select 200 + octet_length(e.name) + octet_length(e.type) + octet_length(e.metadata::text)
         + octet_length(array_to_string(e.aliases, ''))
  $$;

  create or replace function entity_image(o entities) returns json language sql stable as $$
    select json_build_object('name', o.name, 'type', o.type, 'metadata', o.metadata,
      'aliases', o.aliases, 'ordinal', o.ordinal, 'created_at', o.created_at,
      'updated_at', o.updated_at)
  $$;

  create or replace function entities_history() returns trigger language plpgsql as $$
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
          or o.aliases <> n.aliases
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

  create or replace function observations_history() returns trigger language plpgsql as $$
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
       where n.content <> o.content or n.position <> o.position or n.entity_id <> o.entity_id
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

  create or replace function relations_history() returns trigger language plpgsql as $$
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
       where n.type <> o.type or n.from_id <> o.from_id or n.to_id <> o.to_id
          or n.valid_from is distinct from o.valid_from or n.valid_to is distinct from o.valid_to
      on conflict do nothing;
    else
      insert into graph_history (space_id, seq, kind, row_id, entity_id, other_id, before, bytes)
      select o.space_id, call, 'r', o.id, o.from_id, o.to_id, i.image, 64 + octet_length(i.image::text)
        from old_rows o cross join lateral (select relation_image(o) as image) i
      on conflict do nothing;
    end if;
    return null;
  end $$;

  create or replace function entities_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      with d as (
        select space_id, count(*) as rows, sum(entity_bytes(n)) as bytes
          from new_rows n group by space_id
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
                select space_id, entity_bytes(n) as bytes from new_rows n
                union all
                select space_id, -entity_bytes(o) from old_rows o
              ) x join spaces s on s.id = x.space_id group by s.account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      with d as (
        select space_id, count(*) as rows, sum(entity_bytes(o)) as bytes
          from old_rows o group by space_id
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
`;
