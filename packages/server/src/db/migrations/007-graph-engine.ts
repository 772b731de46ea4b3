/**
 * The graph engine's storage (decision 006).
 *
 * - Degrees move to a narrow table: raising the degree of a relation's two
 *   ends used to rewrite two entity rows and every one of their seven indexes
 *   (GIN included); an upsert here touches one small row and two btrees, about
 *   a third of the cost on PGlite. Rows are kept for entities that ever had a
 *   relation; the account lock orders all writers, and deletes remove them.
 * - Observations are searched by word: a GIN index over their `simple`
 *   tsvector (case-folded words, no stemming, so any language works) replaces
 *   the trigram index, which matched substrings by intersecting long posting
 *   lists of common trigrams. Names keep trigram matching (substrings of names
 *   are what people type), now without the account as a leading key: with
 *   btree_gin that key's posting tree held every row of the account, and each
 *   search walked it. The account filter is a recheck on the few rows found.
 *   Both with a small GIN pending list (256 kB instead of 4 MB): fresh rows
 *   wait in an unsorted list that every search scans, so a big list slowed
 *   search after a bulk load; none at all made every insert update the index
 *   tree row by row (entities loaded 2.6k/s against 4.1k/s with the small
 *   list, search unchanged).
 */
export const sql = /* sql */ `
  create table entity_degrees (
    account_id uuid not null references accounts (id) on delete cascade,
    entity_id uuid not null,
    degree integer not null,
    primary key (account_id, entity_id)
  );
  create index entity_degrees_best on entity_degrees (account_id, degree desc, entity_id);
  insert into entity_degrees (account_id, entity_id, degree)
  select account_id, id, degree from entities where degree > 0;
  alter table entities drop column degree;

  drop index observations_content_trgm;
  create index observations_words on observations
    using gin (to_tsvector('simple', content)) with (fastupdate = on, gin_pending_list_limit = 256);
  drop index entities_name_trgm;
  create index entities_name_trgm on entities
    using gin (lower(name) gin_trgm_ops) with (fastupdate = on, gin_pending_list_limit = 256);
`;
