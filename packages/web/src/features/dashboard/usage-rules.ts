import {
  planById,
  tierOf,
  UNLIMITED,
  USAGE_CRITICAL_PERCENT,
  USAGE_WARNING_PERCENT,
  type AnalyticsSummary,
} from '@engram/shared';
import { formatCents } from '@/lib/format';
import { PLAN_TIERS } from '@/lib/plans';

export { formatCount, formatDate } from '@/lib/format';

/** Share of a limit used, in percent (uncapped); null when the limit is unlimited or zero. */
export function usagePercent(used: number, limit: number): number | null {
  if (limit === UNLIMITED || limit <= 0) return null;
  return (used / limit) * 100;
}

/** Progress bars are capped at 100% and turn red over 100% (docs/product.md, Forms). */
export function progressBar(percent: number | null): { width: number; over: boolean } {
  if (percent === null) return { width: 0, over: false };
  return { width: Math.min(100, Math.max(0, percent)), over: percent > 100 };
}

export type UsageWarning =
  | { level: 'critical'; percent: number }
  | { level: 'warning'; percent: number }
  | { level: 'none'; percent: number | null };

/**
 * The dashboard's usage notice (docs/product.md, Forms), from the entities used against the
 * plan's limit: at or above 95% 'Limit Exceeded', at or above 80%
 * 'Approaching Limits', otherwise none (the next plan is suggested instead).
 */
export function usageWarning(totalEntities: number, entityLimit: number): UsageWarning {
  const percent = usagePercent(totalEntities, entityLimit);
  if (percent !== null && percent >= USAGE_CRITICAL_PERCENT) return { level: 'critical', percent };
  if (percent !== null && percent >= USAGE_WARNING_PERCENT) return { level: 'warning', percent };
  return { level: 'none', percent };
}

export type UpgradeHint = { kind: 'plan'; name: string; price: string } | { kind: 'enterprise' };

/**
 * The plan upgrade path (docs/product.md, States): free → Starter, starter → Pro, pro → Team
 * Pro, team or anything else → Enterprise via contact sales. Names and prices
 * come from the shared catalog; the top tier is called Team Pro here, as the
 * hint has always called it ("Power User" elsewhere: docs/product.md, Plans).
 */
export function upgradeHint(userPlan: string): UpgradeHint {
  const index = PLAN_TIERS.indexOf(tierOf(userPlan));
  const next = index >= 0 ? PLAN_TIERS[index + 1] : undefined;
  if (next === undefined) return { kind: 'enterprise' };
  const plan = planById(next);
  return {
    kind: 'plan',
    name: next === 'team' ? 'Team Pro' : plan.name,
    price: `${formatCents(plan.price)}/month`,
  };
}

/** What the dashboard shows when its data could not be loaded (docs/product.md, States): zeros and the free plan. */
export function emptySummary(): AnalyticsSummary {
  const free = planById('free');
  const zero = { queries: 0, creates: 0, updates: 0, deletes: 0, total: 0 };
  const now = new Date();
  return {
    totalEntities: 0,
    accountEntities: 0,
    totalRelations: 0,
    totalObservations: 0,
    recentEntities: [],
    entityTypeStats: [],
    activityStats: [],
    userPlan: free.id,
    apiKeyCount: 0,
    webhookCount: 0,
    todayApiCalls: 0,
    monthlyUsage: zero,
    billingData: { totalRequests: 0, breakdown: {}, details: [] },
    plan: {
      id: free.id,
      name: free.name,
      limits: {
        entities: free.features.maxEntities,
        operationsPerMonth: free.features.maxQueries,
        apiKeys: free.features.maxApiKeys,
        webhooks: free.features.maxWebhooks,
      },
    },
    operationsThisMonth: 0,
    usageResetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    dailyOperations: [],
  };
}

const utcDay = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
});

/** '2026-11-05' (a UTC day) → 'Nov 5, 2026'. */
export function formatDay(day: string): string {
  return utcDay.format(new Date(`${day}T00:00:00Z`));
}

/**
 * Every day of the current month up to today with its operations (days
 * without any are zero), for the chart.
 */
export function monthDays(
  days: AnalyticsSummary['dailyOperations'],
  today = new Date(),
): { date: string; day: number; total: number; queries: number; writes: number }[] {
  const byDate = new Map(days.map((entry) => [entry.date, entry]));
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth();
  const result = [];
  for (let day = 1; day <= today.getUTCDate(); day++) {
    const date = new Date(Date.UTC(year, month, day)).toISOString().slice(0, 10);
    const entry = byDate.get(date);
    result.push({
      date,
      day,
      total: entry?.total ?? 0,
      queries: entry?.queries ?? 0,
      writes: (entry?.creates ?? 0) + (entry?.updates ?? 0) + (entry?.deletes ?? 0),
    });
  }
  return result;
}
