import { z } from 'zod';
import { typeSummary } from './graph.js';

/** Dashboard list sizes (docs/product.md, Numbers). */
export const RECENT_ACTIVITY_DAYS = 7;
export const RECENT_ENTITIES_MAX = 5;
/** Usage warning thresholds in percent of a plan limit (docs/product.md, Forms; Numbers). */
export const USAGE_WARNING_PERCENT = 80;
export const USAGE_CRITICAL_PERCENT = 95;

const count = z.number().int().min(0);

/** Operations by kind this period (`GET /api/analytics/stats/real-time`; also `monthlyUsage`). */
export const operationCounts = z.object({
  queries: count,
  creates: count,
  updates: count,
  deletes: count,
  total: count,
});
export type OperationCounts = z.infer<typeof operationCounts>;

/** GET /api/analytics/stats/real-time: today's operations (UTC day). */
export const realTimeStats = operationCounts;
export type RealTimeStats = z.infer<typeof realTimeStats>;

export const operationDetail = z.object({
  operation_type: z.enum(['query', 'create', 'update', 'delete']),
  resource_type: z.string(),
  /** Milliseconds. */
  avg_response_time: z.number().min(0),
  request_count: count,
});
export type OperationDetail = z.infer<typeof operationDetail>;

/** GET /api/analytics/billing/monthly-summary: this month's operations (UTC month). */
export const monthlySummary = z.object({
  totalRequests: count,
  /** Operations per operation type: query, create, update, delete. */
  breakdown: z.record(z.string(), count),
  /** Per operation and resource type, most requested first. */
  details: z.array(operationDetail),
});
export type MonthlySummary = z.infer<typeof monthlySummary>;

/** A plan's limits as the dashboard shows them; -1 means unlimited (docs/product.md, Numbers). */
export const planLimits = z.object({
  entities: z.number().int(),
  operationsPerMonth: z.number().int(),
  apiKeys: z.number().int(),
  webhooks: z.number().int(),
});
export type PlanLimits = z.infer<typeof planLimits>;

export const dailyOperations = operationCounts.extend({
  /** YYYY-MM-DD (UTC). */
  date: z.string(),
});
export type DailyOperations = z.infer<typeof dailyOperations>;

/**
 * The account's semantic index (only with an embeddings endpoint configured):
 * observations embedded and waiting, the model, and the last failure.
 */
export const embeddingStatus = z.object({
  model: z.string(),
  embedded: count,
  /** Observations waiting for their vector. */
  pending: count,
  /** Why embedding stopped last (the endpoint failing, storage full); null once it works again. */
  lastError: z.string().nullable(),
});
export type EmbeddingStatus = z.infer<typeof embeddingStatus>;

/** GET /api/analytics: the dashboard's summary (docs/product.md, Calls). */
export const analyticsSummary = z.object({
  /** The graph's numbers: the space the request named, or every space's when it named none. */
  totalEntities: count,
  totalRelations: count,
  totalObservations: count,
  /** The account's entities in every space: what the plan's entity limit counts. */
  accountEntities: count,
  /** Newest first, at most RECENT_ENTITIES_MAX. */
  recentEntities: z.array(
    z.object({ id: z.string(), name: z.string(), type: z.string(), created_at: z.string() }),
  ),
  /** The most common entity types first. */
  entityTypeStats: z.array(typeSummary),
  /** Entities created per day (UTC) over the last RECENT_ACTIVITY_DAYS days, newest first; days without any are left out. */
  activityStats: z.array(z.object({ date: z.string(), count })),
  /** The plan's tier: free, starter, pro or team (the annual plans' tiers too). */
  userPlan: z.string(),
  apiKeyCount: count,
  webhookCount: count,
  todayApiCalls: count,
  monthlyUsage: operationCounts,
  billingData: monthlySummary,
  /** The account's plan and its limits, from the shared catalog. */
  plan: z.object({ id: z.string(), name: z.string(), limits: planLimits }),
  /** Operations this month as the monthly limit counts them (every node's, flushed or not). */
  operationsThisMonth: count,
  /** When the monthly allowance starts again (ISO time, start of next UTC month). */
  usageResetsAt: z.string(),
  /** Operations per day of this month (UTC), only days that had any, oldest first. */
  dailyOperations: z.array(dailyOperations),
  /** The semantic index; absent when the server has no embeddings endpoint. */
  embeddings: embeddingStatus.nullable().optional(),
});
export type AnalyticsSummary = z.infer<typeof analyticsSummary>;
