import type { ExpressionBuilder } from 'kysely';
import type { Database } from './schema.js';

/** A query over `account_members as mine`. */
type OverMine = ExpressionBuilder<Database & { mine: Database['account_members'] }, 'mine'>;

/**
 * The account of `mine` has no owner but `userId`: what deleting that person
 * (accounts) and refusing it while others depend on the account (auth) both ask.
 */
export const noOtherOwner =
  (userId: string) =>
  ({ not, exists, selectFrom }: OverMine) =>
    not(
      exists(
        selectFrom('account_members as other')
          .select('other.user_id')
          .whereRef('other.account_id', '=', 'mine.account_id')
          .where('other.role', '=', 'owner')
          .where('other.user_id', '<>', userId),
      ),
    );
