import type { Db } from '../../db/connection.js';

export async function findPlanId(db: Db, accountId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select('plan_id')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.plan_id;
}
