import type { Db } from '../../db/connection.js';

/**
 * What decides an account's plan at any moment: the plan and standing of its
 * subscription row (billing writes the row; entitlements only read it).
 */
export interface EntitlementRow {
  plan_id: string;
  status: string;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  grace_plan_id: string | null;
  grace_until: Date | null;
}

export async function findEntitlement(
  db: Db,
  accountId: string,
): Promise<EntitlementRow | undefined> {
  return db
    .selectFrom('subscriptions')
    .select([
      'plan_id',
      'status',
      'cancel_at_period_end',
      'current_period_end',
      'grace_plan_id',
      'grace_until',
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}
