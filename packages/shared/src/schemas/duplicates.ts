import { z } from 'zod';
import { idString } from './common.js';

/** Candidates per page when no `limit` is given, and the most one page holds. */
export const DUPLICATES_PAGE_DEFAULT = 20;
export const DUPLICATES_PAGE_MAX = 100;

/**
 * GET /api/duplicates: one page of candidate pairs, best first. `cursor` is a
 * previous answer's `nextCursor`.
 */
export const duplicateListQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a whole number from 1 to 100' })
    .int('limit must be a whole number from 1 to 100')
    .min(1, 'limit must be a whole number from 1 to 100')
    .max(DUPLICATES_PAGE_MAX, 'limit must be a whole number from 1 to 100')
    .default(DUPLICATES_PAGE_DEFAULT),
  cursor: z.string().max(2000).optional(),
});
export type DuplicateListQuery = z.input<typeof duplicateListQuery>;
export type DuplicateListQueryParsed = z.output<typeof duplicateListQuery>;

/** One side of a candidate pair, with what a person weighs before merging. */
export const duplicateEntity = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  observationsCount: z.number().int(),
  /** Relations touching the entity, either way. */
  relationsCount: z.number().int(),
});
export type DuplicateEntity = z.infer<typeof duplicateEntity>;

/**
 * Two entities of the space that are probably one thing. `id` is the pair's,
 * the same whichever way round it is named; `score` is between 0 and 1;
 * `reasons` are short phrases a person can read ("names differ by one typo",
 * "same type", "2 shared neighbours").
 */
export const duplicateCandidate = z.object({
  id: z.string(),
  score: z.number().min(0).max(1),
  reasons: z.array(z.string()),
  /** Exactly two. */
  entities: z.array(duplicateEntity).length(2),
});
export type DuplicateCandidate = z.infer<typeof duplicateCandidate>;

export const duplicateList = z.object({
  candidates: z.array(duplicateCandidate),
  /** Pass as `cursor` for the next page; null when nothing follows. */
  nextCursor: z.string().nullable(),
  /**
   * False while changes to the account's memory are still to be compared in
   * the background (after an import, say): the list may lack pairs for a
   * few seconds, or still show a pair by the names it had.
   */
  upToDate: z.boolean(),
});
export type DuplicateList = z.infer<typeof duplicateList>;

const TWO_ENTITIES = 'entityIds must name two different entities';

/** POST /api/duplicates/dismiss and /undismiss: the pair, either way round. */
export const duplicatePairInput = z.object({
  entityIds: z
    .array(idString, { error: TWO_ENTITIES })
    .length(2, TWO_ENTITIES)
    .refine(([a, b]) => a !== b, TWO_ENTITIES),
});
export type DuplicatePairInput = z.infer<typeof duplicatePairInput>;
