import { planById, type Plan } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import * as repo from './billing.repository.js';

/** The plan whose limits apply to the account; no subscription means free (spec §9). */
export async function currentPlan(db: Db, accountId: string): Promise<Plan> {
  return planById(await repo.findPlanId(db, accountId));
}
