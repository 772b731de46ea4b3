import { z } from 'zod';
import { commaList, text } from './common.js';
import { ENTITY_NAME_MAX, TYPE_MAX } from './graph.js';

/** Results per recall when no `limit` is given, and the most one may ask for. */
export const RECALL_LIMIT_DEFAULT = 10;
export const RECALL_LIMIT_MAX = 50;
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

const filterList = (what: string, max: number) =>
  commaList
    .refine((items) => items.length <= RECALL_FILTER_MAX, `At most ${RECALL_FILTER_MAX} ${what}`)
    .refine(
      (items) => items.every((item) => item.length <= max),
      `Each of ${what} must be at most ${max} characters`,
    );

/** GET /api/recall?q=&limit=&types=&entities= (`types`, `entities` comma-separated). */
export const recallQuery = z.object({
  q: question,
  limit: z.coerce.number().int().min(1).max(RECALL_LIMIT_MAX).default(RECALL_LIMIT_DEFAULT),
  types: filterList('types', TYPE_MAX).optional(),
  entities: filterList('entities', ENTITY_NAME_MAX).optional(),
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
  /** Higher is better; comparable only within one answer. */
  score: z.number(),
});
export type RecallResult = z.infer<typeof recallResult>;

/** Best first; few or none when nothing relevant is stored. */
export const recallAnswer = z.object({
  results: z.array(recallResult),
  query: z.string(),
});
export type RecallAnswer = z.infer<typeof recallAnswer>;

/** GET /api/context?q=&maxChars= */
export const contextQuery = z.object({
  q: question,
  maxChars: z.coerce
    .number()
    .int()
    .min(CONTEXT_CHARS_MIN)
    .max(CONTEXT_CHARS_MAX)
    .default(CONTEXT_CHARS_DEFAULT),
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
});
export type ContextAnswer = z.infer<typeof contextAnswer>;
