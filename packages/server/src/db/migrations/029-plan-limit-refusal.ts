/**
 * A graph write's plan limits, checked by its last statement (decision 031).
 *
 * The change-log append (features/graph/changes.repository.ts) is a write's
 * last statement and carries its COMMIT, so the limits it used to leave to a
 * check in the server after it are now part of it: when the account ends up
 * over its plan's entities or storage, the statement calls this function,
 * whose error (SQLSTATE EP001, the limit's name as its message) aborts the
 * transaction before the COMMIT behind it, which then rolls it back.
 */
export const sql = /* sql */ `
  create function refuse_over_plan(plan_limit text) returns boolean
  language plpgsql as $$
  begin
    raise exception using errcode = 'EP001', message = plan_limit;
  end
  $$;
`;
