/**
 * Recall (decision 020): each observation keeps its words as an English
 * tsvector — stemmed, stop words dropped, positions kept — computed once when
 * the row is written, and indexed. It replaces the `simple` word index of
 * migration 007, which search read: one index serves both, and the stemmed
 * one is the cheaper to write (stop words are the commonest entries, and
 * they are no longer kept). Recall scores candidates by matching each query
 * word against the stored vector, so it never re-parses an observation.
 *
 * Entity names get an index over their English words too (an expression
 * index: names are short, so nothing is stored beside them): recall finds the
 * entities a question names by their words — "Maya" finds "Maya Patel",
 * "Caroline's" finds "Caroline" — from the index, whatever the account's size.
 *
 * The stored words count toward the account's storage: 16 bytes per distinct
 * word an observation holds (a tsvector entry, its position and alignment),
 * a rule that gives the same figure on insert and delete.
 */
export const sql = /* sql */ `
  alter table observations
    add column terms tsvector generated always as (to_tsvector('english', content)) stored;
  drop index observations_words;
  create index observations_terms on observations
    using gin (terms) with (fastupdate = on, gin_pending_list_limit = 256);
  create index entities_name_words on entities
    using gin (to_tsvector('english', name)) with (fastupdate = on, gin_pending_list_limit = 256);

  create or replace function observations_account_totals() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      update accounts a
         set stored_bytes = a.stored_bytes + d.bytes, observation_count = a.observation_count + d.rows
        from (select account_id, count(*) as rows,
                     sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) as bytes
                from new_rows group by account_id) d
       where a.id = d.account_id;
    elsif tg_op = 'UPDATE' then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(bytes) as bytes from (
                select account_id, 100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms) as bytes from new_rows
                union all
                select account_id, -(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) from old_rows
              ) x group by account_id) d
       where a.id = d.account_id and d.bytes <> 0;
    else
      update accounts a
         set stored_bytes = a.stored_bytes - d.bytes, observation_count = a.observation_count - d.rows
        from (select account_id, count(*) as rows,
                     sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) as bytes
                from old_rows group by account_id) d
       where a.id = d.account_id;
    end if;
    return null;
  end $$;

  update accounts a set stored_bytes = a.stored_bytes + w.bytes
    from (select account_id, 16 * sum(length(terms)) as bytes from observations group by account_id) w
   where a.id = w.account_id;
`;
