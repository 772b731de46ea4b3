import { z } from 'zod';
import { commaList, text } from './common.js';
import { ENTITY_NAME_MAX, TYPE_MAX } from './graph.js';

/** Results per recall when no `limit` is given, and the most one may ask for. */
export const RECALL_LIMIT_DEFAULT = 10;
export const RECALL_LIMIT_MAX = 50;
/** A tool's optional `limit` on recall's results, `what` naming them in its description. */
export const recallLimitArg = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(RECALL_LIMIT_MAX)
    .optional()
    .describe(`Most ${what} (default ${RECALL_LIMIT_DEFAULT}, at most ${RECALL_LIMIT_MAX})`);
/** The longest question recall reads (longer ones are a 400, never cut silently). */
export const RECALL_QUERY_MAX = 1_000;
/** Most entity types or names one recall may filter on. */
export const RECALL_FILTER_MAX = 100;

/** The budget of a context block, in characters. */
export const CONTEXT_CHARS_DEFAULT = 4_000;
export const CONTEXT_CHARS_MIN = 200;
export const CONTEXT_CHARS_MAX = 20_000;

const question = text('Query is required')
  .trim()
  .min(1, 'Query is required')
  .max(RECALL_QUERY_MAX, `Query must be at most ${RECALL_QUERY_MAX} characters`);

/** An ISO 8601 date (2024-03-01) or time with its zone (2024-03-01T10:00:00Z), UTC. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const RECALL_TIME_HELP = 'an ISO 8601 date (2024-03-01) or time (2024-03-01T10:00:00Z), UTC';

/** Whether `value` is a date or time `since`, `until` and `now` accept. */
export const isRecallTime = (value: string) =>
  ISO_TIME.test(value) && !Number.isNaN(new Date(value).getTime());

/** A date alone is a whole day: `since` from its first instant, `until` to its last (both inclusive). */
export function recallTimeBound(value: string, end: 'since' | 'until' | 'now'): Date {
  const at = new Date(value);
  const dateOnly = value.length === 10;
  return dateOnly && end === 'until' ? new Date(at.getTime() + 86_400_000 - 1) : at;
}

/** The longest time `since`, `until` and `now` take (an ISO 8601 time with its offset fits). */
export const RECALL_TIME_MAX = 40;

const recallTime = (field: string) =>
  z
    .string()
    .max(RECALL_TIME_MAX)
    .refine(isRecallTime, { message: `${field} must be ${RECALL_TIME_HELP}` });

/**
 * The optional time range of a recall or context (both ends inclusive; a date
 * alone as `until` covers its whole day), and the moment time words in the
 * question ("last week", "recently") are read against (default: now).
 */
export const recallTimeArgs = {
  since: recallTime('since').optional(),
  until: recallTime('until').optional(),
  now: recallTime('now').optional(),
};

/**
 * Whether recall may answer "nothing" (default true): when even its best
 * match is too weak, no results and `abstained: true`. A query parameter is
 * `true` or `false`, nothing else.
 */
export const recallAbstainParam = z
  .enum(['true', 'false'], { message: 'abstain must be true or false' })
  .transform((value) => value === 'true')
  .optional();

const filterList = (what: string, max: number) =>
  commaList
    .refine((items) => items.length <= RECALL_FILTER_MAX, `At most ${RECALL_FILTER_MAX} ${what}`)
    .refine(
      (items) => items.every((item) => item.length <= max),
      `Each of ${what} must be at most ${max} characters`,
    );

/** GET /api/recall?q=&limit=&types=&entities=&since=&until=&now=&abstain= (`types`, `entities` comma-separated). */
export const recallQuery = z.object({
  q: question,
  limit: z.coerce.number().int().min(1).max(RECALL_LIMIT_MAX).default(RECALL_LIMIT_DEFAULT),
  types: filterList('types', TYPE_MAX).optional(),
  entities: filterList('entities', ENTITY_NAME_MAX).optional(),
  ...recallTimeArgs,
  abstain: recallAbstainParam,
});
export type RecallQuery = z.input<typeof recallQuery>;

/** One remembered observation, with the entity it belongs to. */
export const recallResult = z.object({
  observation: z.string(),
  observationId: z.string(),
  entityName: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  createdAt: z.string(),
  /**
   * When the fact held in the world, as its writer said (null when not said).
   * Recall's answers always carry both; optional for the past's simpler reader.
   */
  validFrom: z.string().nullable().optional(),
  validTo: z.string().nullable().optional(),
  /** Higher is better; comparable only within one answer. */
  score: z.number(),
  /**
   * How surely it answers the question, 0–1, comparable across questions
   * (docs/recall.md): always present in recall's answers.
   */
  confidence: z.number().min(0).max(1).optional(),
});
export type RecallResult = z.infer<typeof recallResult>;

/**
 * The time range an answer kept to: from `since`/`until` (`parameters`) or
 * from time words in the question (`question`); an open end is null.
 */
export const recallTimeRange = z.object({
  since: z.string().nullable(),
  until: z.string().nullable(),
  source: z.enum(['question', 'parameters']),
});
export type RecallTimeRange = z.infer<typeof recallTimeRange>;

/** Why an answer abstained: even the best matches were too weak. */
export const RECALL_ABSTAIN_REASON =
  'The best matches were too weak: nothing in memory answers that.';

/** Best first; none, with `abstained: true`, when nothing stored answers it. */
export const recallAnswer = z.object({
  results: z.array(recallResult),
  query: z.string(),
  /** Null when no range applied. Always present in recall's answers. */
  timeRange: recallTimeRange.nullable().optional(),
  /**
   * True when recall answered "nothing": matches there were, but too weak
   * (results is then empty). False on every other answer; always present
   * in recall's answers.
   */
  abstained: z.boolean().optional(),
  /** Why it abstained, in words; null when it did not. */
  abstainReason: z.string().nullable().optional(),
});
export type RecallAnswer = z.infer<typeof recallAnswer>;

/** GET /api/context?q=&maxChars=&since=&until=&now=&abstain= */
export const contextQuery = z.object({
  q: question,
  maxChars: z.coerce
    .number()
    .int()
    .min(CONTEXT_CHARS_MIN)
    .max(CONTEXT_CHARS_MAX)
    .default(CONTEXT_CHARS_DEFAULT),
  ...recallTimeArgs,
  abstain: recallAbstainParam,
});
export type ContextQuery = z.input<typeof contextQuery>;

/** The best observations grouped by entity, the relations among those entities, cut to the budget. */
export const contextAnswer = z.object({
  context: z.string(),
  entities: z.array(
    z.object({ name: z.string(), type: z.string(), observations: z.array(z.string()) }),
  ),
  relations: z.array(z.object({ from: z.string(), to: z.string(), relationType: z.string() })),
  /** The length of `context`, never more than the budget. */
  chars: z.number().int(),
  /** The time range the observations were kept to (as recall's), or null. */
  timeRange: recallTimeRange.nullable(),
  /** True when recall abstained (the context is then empty), as on recall's answer. */
  abstained: z.boolean(),
  /** Why it abstained, in words; null when it did not. */
  abstainReason: z.string().nullable(),
});
export type ContextAnswer = z.infer<typeof contextAnswer>;
