/**
 * Search reads name matches in name order and stops at a page's worth, so a
 * common term touches a page of rows, not every match (bench/graph).
 */
export const sql = /* sql */ `
  create index entities_name_sorted on entities (account_id, lower(name), id);
`;
