import {
  RECENT_ACTIVITY_DAYS,
  RECENT_ENTITIES_MAX,
  tierOf,
  typeLabel,
  type AnalyticsSummary,
  type MonthlySummary,
  type OperationCounts,
  type RealTimeStats,
} from '@engram/shared';
import type { AuthContext, SpaceRef } from '../../lib/auth-context.js';
import type { EmbeddingsService } from '../embeddings/index.js';
import type { Entitlements } from '../entitlements/index.js';
import type { WebhooksService } from '../webhooks/index.js';
import type { GraphService } from '../graph/index.js';
import { bindService } from '../feature.js';
import type { KeysService } from '../keys/index.js';
import type { UsageMeter, UsageReport } from '../usage/index.js';

export interface AnalyticsDeps {
  now: () => Date;
  usage: UsageMeter;
  /** The plan in force, shown with its limits. */
  entitlements: Entitlements;
  /** The semantic index, for its line on the dashboard (null there when no endpoint is set). */
  embeddings?: EmbeddingsService | undefined;
  /** Live API keys, counted against the plan. */
  keys: Pick<KeysService, 'liveKeyCount'>;
  /** The graph's counters, kept in the write transaction. */
  graph: Pick<GraphService, 'overview'>;
  /** Webhook endpoints, counted against the plan. */
  webhooks: Pick<WebhooksService, 'webhookCount'>;
}

/** Entity types listed in the summary, most common first. */
const ENTITY_TYPES_MAX = 20;
const DAY_MS = 86_400_000;

function breakdown(counts: OperationCounts): Record<string, number> {
  return {
    query: counts.queries,
    create: counts.creates,
    update: counts.updates,
    delete: counts.deletes,
  };
}

function monthlyOf(report: UsageReport): MonthlySummary {
  return {
    totalRequests: report.month.total,
    breakdown: breakdown(report.month),
    details: report.details,
  };
}

/**
 * The dashboard's summary (docs/product.md, Shapes), composed from the features that own
 * each part: the graph's counters (totals, daily creations, newest entities,
 * types), the live API keys, the usage rows and the plan in force. A few
 * short reads, whatever the account's size.
 */
/** The dashboard's numbers: one space's graph when the request named one, else every space's. */
export async function summary(
  deps: AnalyticsDeps,
  auth: AuthContext & { space?: SpaceRef },
): Promise<AnalyticsSummary> {
  const now = deps.now();
  const since = new Date(now.getTime() - (RECENT_ACTIVITY_DAYS - 1) * DAY_MS)
    .toISOString()
    .slice(0, 10);
  const { accountId } = auth;
  const [rows, apiKeys, webhooks, plan, usage, embeddings] = await Promise.all([
    deps.graph.overview(auth, { since, recent: RECENT_ENTITIES_MAX, types: ENTITY_TYPES_MAX }),
    deps.keys.liveKeyCount(accountId),
    deps.webhooks.webhookCount(accountId),
    deps.entitlements.planOf(accountId, now),
    deps.usage.report(accountId),
    deps.embeddings ? deps.embeddings.embeddingStatus(accountId) : null,
  ]);
  const { features } = plan;
  return {
    totalEntities: rows.entities,
    totalRelations: rows.relations,
    totalObservations: rows.observations,
    accountEntities: rows.accountEntities,
    recentEntities: rows.recent,
    entityTypeStats: rows.types.map(({ type, count }) => ({ type, label: typeLabel(type), count })),
    activityStats: rows.activity,
    userPlan: tierOf(plan.id),
    apiKeyCount: apiKeys,
    webhookCount: webhooks,
    todayApiCalls: usage.today.total,
    monthlyUsage: usage.month,
    billingData: monthlyOf(usage),
    plan: {
      id: plan.id,
      name: plan.name,
      limits: {
        entities: features.maxEntities,
        operationsPerMonth: features.maxQueries,
        apiKeys: features.maxApiKeys,
        webhooks: features.maxWebhooks,
      },
    },
    operationsThisMonth: usage.admitted,
    usageResetsAt: usage.resetsAt,
    dailyOperations: usage.days,
    // Only on a server with an embeddings endpoint: otherwise the answer is as it always was.
    ...(embeddings ? { embeddings } : {}),
  };
}

/** Today's operations (UTC day): `GET /api/analytics/stats/real-time`. */
export async function realTimeStats(
  deps: AnalyticsDeps,
  auth: AuthContext,
): Promise<RealTimeStats> {
  return (await deps.usage.report(auth.accountId)).today;
}

/** This month's operations with their breakdown and details: `GET /api/analytics/billing/monthly-summary`. */
export async function monthlySummary(
  deps: AnalyticsDeps,
  auth: AuthContext,
): Promise<MonthlySummary> {
  return monthlyOf(await deps.usage.report(auth.accountId));
}

export const createAnalyticsService = (deps: AnalyticsDeps) =>
  bindService(deps, { summary, realTimeStats, monthlySummary });

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
