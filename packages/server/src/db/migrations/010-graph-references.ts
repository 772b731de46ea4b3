/**
 * The graph's references are kept by its write path, not checked per row
 * (decision 016). Every graph write runs under the account lock, names or
 * looks up the entities it refers to in that transaction, and deletes an
 * entity's observations and relations with it; the foreign keys below
 * repeated those checks once per inserted row (one to three index probes and
 * row locks each), a fifth of the cost of a bulk load.
 */
export const sql = /* sql */ `
  alter table observations drop constraint observations_account_id_entity_id_fkey;
  alter table relations
    drop constraint relations_account_id_from_id_fkey,
    drop constraint relations_account_id_to_id_fkey;
  alter table entities drop constraint entities_account_id_fkey;
  alter table entity_degrees drop constraint entity_degrees_account_id_fkey;
  alter table graph_events drop constraint graph_events_account_id_fkey;
`;
