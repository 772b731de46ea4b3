/**
 * The word indexes lead with the space (decision 029).
 *
 * Observations' words (search's word arm, recall) and entity names' words
 * (recall's named entities) were indexed across all spaces, and a query
 * checked the space on each row the index found. A word common in other
 * accounts then cost a read of every row that held it anywhere: with 51
 * accounts holding the same words, recall cost PostgreSQL ~5× the CPU of the
 * same question with one account. With the space as the index's first key
 * (btree_gin), GIN intersects the space's entries with the word's and reads
 * only the space's rows.
 */
export const sql = /* sql */ `
  drop index observations_terms;
  create index observations_terms on observations
    using gin (space_id, terms) with (fastupdate = on, gin_pending_list_limit = 256);
  drop index entities_name_words;
  create index entities_name_words on entities
    using gin (space_id, to_tsvector('english', name)) with (fastupdate = on, gin_pending_list_limit = 256);
`;
