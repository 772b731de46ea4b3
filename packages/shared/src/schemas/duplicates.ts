import { z } from 'zod';
import { idString } from './common.js';
import { entity, entityName, typeName } from './graph.js';

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
  /** Only the pairs this entity is in (the entity page's "Possible duplicates"). */
  entityId: idString.optional(),
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

/** The most sources one merge takes. */
export const MERGE_SOURCES_MAX = 20;

/**
 * POST /api/entities/merge: the sources become the target. `name` and `type`
 * rename and retype the target (its old name becomes an alias).
 */
export const mergeInput = z
  .object({
    targetId: idString,
    sourceIds: z
      .array(idString, { error: 'sourceIds must be a list of entity ids' })
      .min(1, 'Give at least one source')
      .max(MERGE_SOURCES_MAX, `At most ${MERGE_SOURCES_MAX} sources per merge`),
    name: entityName.optional(),
    type: typeName('Type').optional(),
  })
  .refine((value) => !value.sourceIds.includes(value.targetId), {
    message: 'The target cannot be one of its sources',
    path: ['sourceIds'],
  });
export type MergeInput = z.input<typeof mergeInput>;

/** What a merge did: the target as it is now, counts of what moved, and the call to revert. */
export const mergeResult = z.object({
  entity,
  merged: z.object({
    /** Sources removed. */
    entities: z.number().int(),
    /** Observations moved to the target (equal ones are kept once and not counted). */
    observations: z.number().int(),
    /** Relations re-pointed to the target (ones that became a loop or a repeat are dropped and not counted). */
    relations: z.number().int(),
    /** Observations and relations dropped as repeats or loops. */
    duplicatesDropped: z.number().int(),
  }),
  /** The merge's call, as history names it: `POST /api/changes/{callSeq}/revert` undoes it. */
  callSeq: z.number().int(),
});
export type MergeResult = z.infer<typeof mergeResult>;

/** A likely duplicate of an entity just created (`POST /api/entities`'s `possibleDuplicates`). */
export const possibleDuplicate = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  score: z.number().min(0).max(1),
});
export type PossibleDuplicate = z.infer<typeof possibleDuplicate>;

/** POST /api/entities's 201: the entity, and the entities it is probably the same as (empty when none). */
export const createdEntity = entity.extend({ possibleDuplicates: z.array(possibleDuplicate) });
export type CreatedEntity = z.infer<typeof createdEntity>;
