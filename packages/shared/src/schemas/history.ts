import { z } from 'zod';
import { isStorableTime } from './common.js';
import { GRAPH_EVENT_TYPES } from './realtime.js';

/**
 * History (docs/history.md): every change to a space's graph is kept for the
 * plan's retention window, so a read can ask for the graph as it was
 * (`asOf`), an entity shows how it came to be, and a call can be reverted.
 */

/** `asOf` in a query or a tool's arguments: an ISO 8601 time, or `seq:<n>` (a change's sequence number). */
export const AS_OF_HELP = 'an ISO 8601 time (2026-11-20T10:00:00Z) or seq:<number>';

export type AsOf = { seq: number } | { at: Date };

/** Parses `asOf`; undefined when it is neither form. */
export function parseAsOf(value: string): AsOf | undefined {
  const seq = /^seq:(\d{1,15})$/.exec(value);
  if (seq) return { seq: Number(seq[1]) };
  // A date alone, or a date and time with seconds and a zone (Z or ±hh:mm).
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value)) {
    return undefined;
  }
  const at = new Date(value);
  return isStorableTime(at) ? { at } : undefined;
}

export const asOfParam = z
  .string()
  .max(64)
  .refine((value) => parseAsOf(value) !== undefined, { message: `asOf must be ${AS_OF_HELP}` });

/** Changes per page of a history read when no `limit` is given. */
export const HISTORY_PAGE_DEFAULT = 50;
export const HISTORY_PAGE_MAX = 200;

export const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(HISTORY_PAGE_MAX).default(HISTORY_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

/** `since` and `until`: times or `seq:N`, both optional; `since` excludes, `until` includes. */
export const changesQuery = historyQuery.extend({
  since: asOfParam.optional(),
  until: asOfParam.optional(),
});

/** A person of the account, as history names them: "First Last", or their email when they gave no name. */
export const historyUser = z.object({
  id: z.string(),
  name: z.string(),
});
export type HistoryUser = z.infer<typeof historyUser>;

/** Who made a change: a person's session, an API key, or an OAuth-connected app. */
export const historyActor = z.object({
  kind: z.enum(['user', 'api_key', 'oauth']),
  id: z.string(),
  /** The person's name or email, the key's name, the app's name; null once it is gone. */
  name: z.string().nullable(),
  /**
   * The person behind the credential: the session's user, the key's creator,
   * the user who connected the app. Null when the change does not say (a key's
   * or an app's change made before the change log recorded it) or the person
   * is gone.
   */
  user: historyUser.nullable(),
});
export type HistoryActor = z.infer<typeof historyActor>;

export const observationVersion = z.object({
  id: z.string(),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  /** When the fact held in the world, as the writer said (null: not said). */
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
});
export type ObservationVersion = z.infer<typeof observationVersion>;

/**
 * An entity as it was before or after a change. `observations` holds the ones
 * the change added, removed or changed (all of them when the entity was
 * created or deleted), never the untouched rest.
 */
export const entityVersion = z.object({
  kind: z.literal('entity'),
  id: z.string(),
  name: z.string(),
  type: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  /** Other names it went by (a merge adds its sources'). */
  aliases: z.array(z.string()),
  observations: z.array(observationVersion),
});
export type EntityVersion = z.infer<typeof entityVersion>;

export const relationVersion = z.object({
  kind: z.literal('relation'),
  id: z.string(),
  fromEntityId: z.string(),
  toEntityId: z.string(),
  /** The ends' names at the time of the change (null when unknown). */
  fromEntityName: z.string().nullable(),
  toEntityName: z.string().nullable(),
  relationType: z.string(),
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
});
export type RelationVersion = z.infer<typeof relationVersion>;

export const historyChange = z.object({
  /** The change's sequence number in the account's change log. */
  seq: z.number().int(),
  /** The first seq of the call that made it: a revert of any of its changes reverts them all. */
  callSeq: z.number().int(),
  type: z.enum(GRAPH_EVENT_TYPES),
  at: z.string(),
  actor: historyActor.nullable(),
  /** The space's slug ('' once the space is gone). */
  space: z.string(),
  before: z.union([entityVersion, relationVersion]).nullable(),
  after: z.union([entityVersion, relationVersion]).nullable(),
});
export type HistoryChange = z.infer<typeof historyChange>;

export const historyPage = z.object({
  changes: z.array(historyChange),
  /** Pass as `cursor` for the next (older) page; null when nothing follows. */
  nextCursor: z.string().nullable(),
});
export type HistoryPage = z.infer<typeof historyPage>;

/**
 * `GET /api/entities/{id}/authors`: who created the entity and who last
 * changed it (its own row, its observations or a relation touching it: the
 * newest change its history lists), read from the history the plan keeps.
 * `createdAt` / `updatedAt` are null when history no longer holds that change
 * (compacted after the plan's history window, or made before history was
 * kept); `createdBy` / `updatedBy` are null then too, and when the change is
 * held but its person is unknown (a key's or an app's change recorded before
 * the change log named the person) or gone.
 */
export const entityAuthors = z.object({
  createdBy: historyUser.nullable(),
  createdAt: z.string().nullable(),
  updatedBy: historyUser.nullable(),
  updatedAt: z.string().nullable(),
});
export type EntityAuthors = z.infer<typeof entityAuthors>;

export const revertResult = z.object({
  /** The call that was reverted (its first seq) and the changes it made. */
  reverted: z.object({ callSeq: z.number().int(), changes: z.number().int() }),
  /** The revert's own changes in the log (a revert is a change too); empty when nothing was left to undo. */
  seqs: z.array(z.number().int()),
});
export type RevertResult = z.infer<typeof revertResult>;

/**
 * What `DELETE /api/entities/{id}` and `DELETE /api/relations/{id}` answer:
 * `callSeq` names the delete's call as history does (its first seq), the
 * `{seq}` of `POST /api/changes/{seq}/revert` that undoes it. A purge
 * (`?purge=true`) cannot be undone and answers no `callSeq`.
 */
export const deleteResult = z.object({
  success: z.literal(true),
  callSeq: z.number().int().positive(),
});
export type DeleteResult = z.infer<typeof deleteResult>;

/** An entity's DELETE: as `deleteResult`, without `callSeq` for a purge. */
export const entityDeleteResult = deleteResult.extend({
  callSeq: deleteResult.shape.callSeq.optional(),
});
