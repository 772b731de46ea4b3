/**
 * Search finds every name match through the trigram index and ranks exact
 * and prefix matches from the names found (decision 015), so the two btrees
 * over `lower(name)` that served its prefix and ordered arms are read by
 * nothing. Each cost every entity insert an expression and an index entry.
 */
export const sql = /* sql */ `
  drop index entities_name_lower;
  drop index entities_name_sorted;
`;
