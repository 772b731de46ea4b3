/**
 * Entity lists page by key (GET /api/entities with `cursor`): a page starts
 * right after the last entity of the page before, newest first. Without a
 * type filter `entities_by_ordinal` serves that order; with one, this index
 * does, so a late page of one type reads its own rows, not every row before
 * it. It also serves every lookup `(account_id, type)` served, so that index
 * goes: one index fewer to keep on each entity write.
 */
export const sql = /* sql */ `
  create index entities_by_type_ordinal on entities (account_id, type, ordinal);
  drop index entities_by_type;
`;
