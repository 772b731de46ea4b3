import type { DuplicateCandidate, DuplicateList, DuplicateListQueryParsed } from '@engram/shared';
import { z } from 'zod';
import type { Db } from '../../db/connection.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { decodeCursor, pageOf } from '../../lib/cursor.js';
import { notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { requireSpaceAccess } from '../../lib/space-access.js';
import { bindService } from '../feature.js';
import * as repo from './duplicates.repository.js';
import { progressOf } from './finder.repository.js';
import { mergeEntities, type MergeDeps } from './merge.service.js';

export interface DuplicatesDeps extends MergeDeps {
  db: Db;
  /** The background finder: a read that finds it behind waits for it a while, then wakes it. */
  finder: { hurry(accountId: string, ms: number): Promise<void>; soon(): void };
}

/**
 * A read that finds its account behind by at most READ_WAITS_FOR entities
 * (an import just landed) waits up to READ_WAITS_MS for the finder to
 * compare them before answering; further behind, it answers at once.
 */
const READ_WAITS_FOR = 2_500;
const READ_WAITS_MS = 3_000;

const uuid = z.string().refine(isUuid);
const cursorShape = z.object({ s: z.number().min(0).max(1), a: uuid, b: uuid });

/** A pair's id: the same whichever way round its entities are named. */
export const pairId = (a: string, b: string) => `${a}_${b}`;

/** The pair's ids in the order the tables keep them (`a` < `b`); 404 for an id that names no entity. */
function orderedPair(entityIds: string[]): [string, string] {
  const ids = entityIds.map((id) => id.toLowerCase());
  if (ids.length !== 2 || !ids.every(isUuid)) throw notFound('Entity');
  const [a, b] = ids as [string, string];
  return a < b ? [a, b] : [b, a];
}

function toCandidate(row: repo.CandidatePairRow): DuplicateCandidate {
  return {
    id: pairId(row.entity_a, row.entity_b),
    score: row.score,
    reasons: row.reasons,
    entities: [
      {
        id: row.entity_a,
        name: row.name_a,
        type: row.type_a,
        observationsCount: Number(row.observations_a),
        relationsCount: Number(row.relations_a),
      },
      {
        id: row.entity_b,
        name: row.name_b,
        type: row.type_b,
        observationsCount: Number(row.observations_b),
        relationsCount: Number(row.relations_b),
      },
    ],
  };
}

/**
 * One page of the space's likely duplicates, best first, from the pairs the
 * background finder keeps: dismissed pairs and deleted entities left out.
 * A read that finds the account a little behind waits for the finder a
 * while; `upToDate` is false when it is still behind then.
 */
export async function listDuplicates(
  deps: DuplicatesDeps,
  auth: SpaceAuth,
  query: DuplicateListQueryParsed,
): Promise<DuplicateList> {
  const position =
    query.cursor === undefined
      ? undefined
      : decodeCursor(query.cursor, cursorShape, 'query.cursor');
  const entityId = query.entityId?.toLowerCase();
  if (entityId !== undefined && !isUuid(entityId)) throw notFound('Entity');
  const read = () =>
    Promise.all([
      repo.listPairs(deps.db, auth.space.id, {
        after: position && { score: position.s, a: position.a, b: position.b },
        limit: query.limit + 1,
        entityId,
      }),
      progressOf(deps.db, auth.accountId),
    ]);
  let [rows, progress] = await read();
  if (progress && !progress.upToDate && progress.behind <= READ_WAITS_FOR) {
    await deps.finder.hurry(auth.accountId, READ_WAITS_MS);
    [rows, progress] = await read();
  }
  const upToDate = progress?.upToDate ?? true;
  if (!upToDate) deps.finder.soon();
  const { page, nextCursor } = pageOf(rows, query.limit, (last) => ({
    s: last.score,
    a: last.entity_a,
    b: last.entity_b,
  }));
  return {
    candidates: page.map(toCandidate),
    nextCursor,
    upToDate,
  };
}

/** The pair a dismissal names, in stored order, once the credential may write the space. */
function pairToWrite(auth: SpaceAuth, entityIds: string[]) {
  requireSpaceAccess(auth, auth.space.slug, 'write');
  return orderedPair(entityIds);
}

/**
 * Says the two entities are not one thing: the pair is not proposed again
 * until one of them is renamed. 404 unless both are entities of the space.
 */
export async function dismissDuplicate(
  deps: DuplicatesDeps,
  auth: SpaceAuth,
  entityIds: string[],
): Promise<void> {
  const [a, b] = pairToWrite(auth, entityIds);
  if (!(await repo.dismissPair(deps.db, auth.accountId, auth.space.id, a, b))) {
    throw notFound('Entity');
  }
}

/** Takes a dismissal back (nothing to take back is no error). 404 unless both are entities of the space. */
export async function undismissDuplicate(
  deps: DuplicatesDeps,
  auth: SpaceAuth,
  entityIds: string[],
): Promise<void> {
  const [a, b] = pairToWrite(auth, entityIds);
  if ((await repo.namesOf(deps.db, auth.space.id, [a, b])).length !== 2) throw notFound('Entity');
  await repo.undismissPair(deps.db, auth.space.id, a, b);
}

/** Finding duplicates, as every adapter calls it (the database stays inside). */
export function createDuplicatesService(deps: DuplicatesDeps) {
  return bindService(deps, {
    listDuplicates,
    dismissDuplicate,
    undismissDuplicate,
    mergeEntities,
  });
}

export type DuplicatesService = ReturnType<typeof createDuplicatesService>;
