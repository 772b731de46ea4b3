import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../../packages/server/src/db/connection.js';

/**
 * Signs a user up through the real route and moves the account to the team
 * plan (1M entities), so creates are not refused past the free plan's 1,000.
 */
export async function signUpOnTeamPlan(
  app: FastifyInstance,
  handle: DatabaseHandle,
): Promise<{ token: string; accountId: string }> {
  const register = await app.inject({
    method: 'POST',
    url: '/auth/register',
    payload: {
      email: `bench-${randomUUID().slice(0, 8)}@example.com`,
      password: 'Password123',
      firstName: 'Bench',
      lastName: 'Mark',
    },
  });
  if (register.statusCode !== 201) throw new Error(`sign-up failed: ${register.body}`);
  const { token, user } = register.json<{ token: string; user: { id: string } }>();
  const accountId = await handle.withSession(async (session) => {
    const [member] = await session.query<{ account_id: string }>(
      'select account_id from account_members where user_id = $1',
      [user.id],
    );
    await session.query(`update subscriptions set plan_id = 'team' where account_id = $1`, [
      member!.account_id,
    ]);
    return member!.account_id;
  });
  return { token, accountId };
}

/** CPU used so far, ms: by this process, and by each PostgreSQL process on the machine (from /proc). */
export function cpuNow(): { app: number; postgres: Map<string, number> } {
  const usage = process.cpuUsage();
  const postgres = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // the process ended
    }
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
    const fields = stat.slice(close + 2).split(' ');
    // utime + stime, in Linux's clock ticks of 10 ms.
    postgres.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return { app: (usage.user + usage.system) / 1000, postgres };
}

/** CPU between two readings, ms; PostgreSQL's over the processes alive at the second. */
export function cpuBetween(
  before: ReturnType<typeof cpuNow>,
  after: ReturnType<typeof cpuNow>,
): { app: number; postgres: number } {
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  return { app: after.app - before.app, postgres };
}
