import type {
  AsOf,
  EntityAuthors,
  EntityVersion,
  GraphEventType,
  HistoryChange,
  HistoryPage,
  HistoryUser,
  ObservationVersion,
  RelationVersion,
  RevertResult,
} from '@engram/shared';
import { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { badRequest, conflict, notFound, notFoundBecause } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { graphWrites as writes, type WriteScope } from '../graph/index.js';
import type { HistoryDeps } from './history-deps.js';
import * as historyRepo from './history.repository.js';

/**
 * History (docs/history.md): reading the graph as of a past change, each
 * entity's changes with what they did, and reverting a call. Every change is
 * an event of the change log; what it did is read from the rows' images in
 * `graph_history` (history.repository).
 */

// ── as of ────────────────────────────────────────────────────────────────────

/**
 * The seq `asOf` names: a seq as given (the present past the last one), or
 * the last change made at or before a time. 400 naming `field` when it is
 * earlier than the history the account keeps.
 */
export async function resolveAsOf(
  deps: HistoryDeps,
  auth: SpaceAuth,
  asOf: AsOf,
  field: string,
): Promise<number> {
  const bounds = await historyRepo.historyBounds(deps.db, auth.accountId);
  const earliest = `seq:${bounds.seq}${bounds.at ? ` (${bounds.at.toISOString()})` : ''}`;
  const tooEarly = () =>
    badRequest(
      field,
      `${field.replace(/^query\./, '')} is earlier than the history this account keeps: the earliest point is ${earliest}`,
    );
  if ('seq' in asOf) {
    if (asOf.seq < bounds.seq) throw tooEarly();
    return Math.min(asOf.seq, bounds.latest);
  }
  if (bounds.at && asOf.at < bounds.at) throw tooEarly();
  return (await historyRepo.seqAtTime(deps.db, auth.accountId, asOf.at)) ?? bounds.seq;
}

// ── versions of rows ─────────────────────────────────────────────────────────

type Image = Record<string, unknown>;

/**
 * Rows' versions at any seq from `afterSeq` on: the image before a row's
 * first change after that seq, or the row as it is now when nothing changed
 * it since (undefined: it did not exist).
 */
class Versions {
  private readonly changes = new Map<string, historyRepo.HistoryRow[]>();

  constructor(
    later: historyRepo.HistoryRow[],
    private readonly present: Map<string, { image: Image }>,
  ) {
    for (const row of later) {
      const list = this.changes.get(row.row_id);
      if (list) list.push(row);
      else this.changes.set(row.row_id, [row]);
    }
  }

  static async load(deps: HistoryDeps, spaceId: string, ids: string[], afterSeq: number) {
    const unique = [...new Set(ids)];
    const [later, present] = await Promise.all([
      historyRepo.laterChanges(deps.db, spaceId, unique, afterSeq),
      historyRepo.presentImages(deps.db, spaceId, unique),
    ]);
    return new Versions(later, present);
  }

  /** The row as it is now (undefined: it does not exist). */
  now(id: string): Image | undefined {
    return this.present.get(id)?.image;
  }

  at(id: string, seq: number): Image | undefined {
    const next = this.changes.get(id)?.find((change) => change.seq > seq);
    if (next) return next.before ?? undefined;
    return this.present.get(id)?.image;
  }
}

const iso = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();

function observationVersion(id: string, image: Image): ObservationVersion {
  return {
    id,
    content: image.content as string,
    metadata: (image.metadata as Record<string, unknown> | null) ?? null,
    validFrom: iso(image.valid_from),
    validTo: iso(image.valid_to),
  };
}

function entityVersion(
  versions: Versions,
  id: string,
  seq: number,
  observationIds: string[],
): EntityVersion | null {
  const image = versions.at(id, seq);
  if (!image) return null;
  const observations = observationIds.flatMap((observationId) => {
    const observation = versions.at(observationId, seq);
    return observation ? [observationVersion(observationId, observation)] : [];
  });
  return {
    kind: 'entity',
    id,
    name: image.name as string,
    type: image.type as string,
    metadata: (image.metadata as Record<string, unknown>) ?? {},
    // Images kept before migration 032 have no aliases.
    aliases: (image.aliases as string[] | undefined) ?? [],
    observations,
  };
}

function relationVersion(versions: Versions, id: string, seq: number): RelationVersion | null {
  const image = versions.at(id, seq);
  if (!image) return null;
  const from = image.from_id as string;
  const to = image.to_id as string;
  return {
    kind: 'relation',
    id,
    fromEntityId: from,
    toEntityId: to,
    fromEntityName: (versions.at(from, seq)?.name as string | undefined) ?? null,
    toEntityName: (versions.at(to, seq)?.name as string | undefined) ?? null,
    relationType: image.type as string,
    validFrom: iso(image.valid_from),
    validTo: iso(image.valid_to),
  };
}

// ── history pages ────────────────────────────────────────────────────────────

const cursorShape = z.object({ seq: z.number().int().positive() });

/** What an event is about: an entity, or a relation with its ends. */
function subjectOf(event: historyRepo.EventRow, entityId?: string) {
  const payload = event.payload;
  if (typeof payload.relationId === 'string') {
    return {
      relationId: payload.relationId,
      ends: [payload.fromEntityId as string, payload.toEntityId as string],
    };
  }
  // A merge, on the page of one of its sources: that source, before it went.
  if (entityId && (payload.mergedIds as string[] | undefined)?.includes(entityId)) {
    return { entityId };
  }
  return { entityId: payload.entityId as string };
}

/**
 * The changes of these calls (newest first, before `beforeSeq`, at most
 * `limit`; only those about `entityId` when given), each with what it did.
 */
async function changesOfCalls(
  deps: HistoryDeps,
  auth: SpaceAuth,
  calls: historyRepo.CallRow[],
  page: { beforeSeq: number; limit: number; entityId?: string | undefined },
): Promise<{ changes: HistoryChange[]; more: boolean }> {
  // One past the page says whether more follow.
  const events = await historyRepo.eventsOfCalls(deps.db, auth.accountId, calls, {
    ...page,
    limit: page.limit + 1,
  });
  const kept = events.slice(0, page.limit);
  if (kept.length === 0) return { changes: [], more: false };
  const callOf = (seq: number) => calls.find((call) => call.seq <= seq && seq <= call.last_seq)!;
  const entityIds = new Set<string>();
  const relationIds = new Set<string>();
  for (const event of kept) {
    const subject = subjectOf(event, page.entityId);
    if (subject.relationId) {
      relationIds.add(subject.relationId);
      for (const end of subject.ends) entityIds.add(end);
    } else if (subject.entityId) entityIds.add(subject.entityId);
  }
  const callSeqs = [...new Set(kept.map((event) => callOf(event.seq).seq))];
  const rows = await historyRepo.rowsOfCalls(deps.db, auth.space.id, callSeqs, [...entityIds]);
  // The observations each call changed, by entity.
  const touched = new Map<string, string[]>();
  for (const row of rows) {
    if (row.kind !== 'o' || !entityIds.has(row.entity_id)) continue;
    const key = `${row.seq}:${row.entity_id}`;
    touched.set(key, [...(touched.get(key) ?? []), row.row_id]);
  }
  const ids = [...entityIds, ...relationIds, ...[...touched.values()].flat()];
  const versions = await Versions.load(deps, auth.space.id, ids, Math.min(...callSeqs) - 1);
  const names = await historyRepo.actorNames(
    deps.db,
    calls.map((call) => call.actor),
  );
  const changes = kept.map((event): HistoryChange => {
    const call = callOf(event.seq);
    const subject = subjectOf(event, page.entityId);
    const [before, after] = subject.relationId
      ? [
          relationVersion(versions, subject.relationId, call.seq - 1),
          relationVersion(versions, subject.relationId, call.last_seq),
        ]
      : [call.seq - 1, call.last_seq].map((seq) =>
          entityVersion(
            versions,
            subject.entityId!,
            seq,
            touched.get(`${call.seq}:${subject.entityId}`) ?? [],
          ),
        );
    const { kind, id } = call.actor;
    return {
      seq: event.seq,
      callSeq: call.seq,
      type: event.type as GraphEventType,
      at: call.at.toISOString(),
      actor: { kind, id, name: names.get(`${kind}:${id}`) ?? null, user: userOf(call, names) },
      space: auth.space.slug,
      before: before ?? null,
      after: after ?? null,
    };
  });
  return { changes, more: events.length > page.limit };
}

/**
 * The person behind a call's credential, with their name; null when the call
 * does not say (a key's or an app's call recorded before `userId` was) or
 * the person is gone.
 */
function userOf(call: historyRepo.CallRow, names: Map<string, string>): HistoryUser | null {
  const userId = call.actor.userId ?? (call.actor.kind === 'user' ? call.actor.id : undefined);
  const name = userId ? names.get(`user:${userId}`) : undefined;
  return userId && name !== undefined ? { id: userId, name } : null;
}

function pageOf(
  result: { changes: HistoryChange[]; more: boolean },
  callsFull: boolean,
): HistoryPage {
  const last = result.changes.at(-1);
  const more = result.more || (callsFull && last !== undefined);
  return {
    changes: result.changes,
    nextCursor: more && last ? encodeCursor({ seq: last.seq }) : null,
  };
}

/** Every change to one entity, its observations and its relations, newest first. */
export async function entityHistory(
  deps: HistoryDeps,
  auth: SpaceAuth,
  entityId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<HistoryPage> {
  if (!isUuid(entityId)) throw notFound('Entity');
  const beforeSeq = page.cursor
    ? decodeCursor(page.cursor, cursorShape, 'query.cursor').seq
    : Number.MAX_SAFE_INTEGER;
  const calls = await historyRepo.callsTouching(
    deps.db,
    auth.accountId,
    auth.space.id,
    entityId,
    beforeSeq,
    page.limit,
  );
  if (calls.length === 0 && !page.cursor) {
    // Nothing kept about it: an entity that exists (unchanged since the history began) has an empty history.
    const present = await historyRepo.presentImages(deps.db, auth.space.id, [entityId]);
    if (!present.has(entityId)) throw notFound('Entity');
  }
  const result = await changesOfCalls(deps, auth, calls, {
    beforeSeq,
    limit: page.limit,
    entityId,
  });
  return pageOf(result, calls.length === page.limit);
}

/** The space's changes after `since` and through `until`, newest first. */
export async function listChanges(
  deps: HistoryDeps,
  auth: SpaceAuth,
  query: {
    since?: AsOf | undefined;
    until?: AsOf | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<HistoryPage> {
  const since = query.since ? await resolveAsOf(deps, auth, query.since, 'query.since') : 0;
  const until = query.until
    ? await resolveAsOf(deps, auth, query.until, 'query.until')
    : Number.MAX_SAFE_INTEGER;
  const beforeSeq = query.cursor
    ? decodeCursor(query.cursor, cursorShape, 'query.cursor').seq
    : Number.MAX_SAFE_INTEGER;
  const calls = await historyRepo.callsInSpace(
    deps.db,
    auth.space.id,
    { since, until, beforeSeq },
    query.limit,
  );
  // Calls are whole: their events are after `since` and through `until` as their first is.
  const result = await changesOfCalls(deps, auth, calls, { beforeSeq, limit: query.limit });
  return pageOf(result, calls.length === query.limit);
}

/**
 * Who created the entity and who last changed it (`GET
 * /api/entities/{id}/authors`), from the history the plan keeps: null where
 * it no longer holds the change, or its person is unknown or gone. 404 when
 * the entity is not in the space now, as its read.
 */
export async function entityAuthors(
  deps: HistoryDeps,
  auth: SpaceAuth,
  entityId: string,
): Promise<EntityAuthors> {
  if (!isUuid(entityId)) throw notFound('Entity');
  const row = await historyRepo.entityAuthors(deps.db, auth.accountId, auth.space.id, entityId);
  if (!row.present) throw notFound('Entity');
  const person = (id: string | null, name: string | null) =>
    id !== null && name !== null ? { id, name } : null;
  return {
    createdBy: person(row.created_user_id, row.created_user_name),
    createdAt: row.created_at?.toISOString() ?? null,
    updatedBy: person(row.updated_user_id, row.updated_user_name),
    updatedAt: row.updated_at?.toISOString() ?? null,
  };
}

// ── revert ───────────────────────────────────────────────────────────────────

/** Differences a revert meets, shown at most this many. */
const CONFLICTS_SHOWN = 10;

/**
 * Reverts everything the call that made change `seq` did, as a new call
 * (itself a change, revertable in turn). Refused with 409 when a row it
 * changed (or an entity it created) changed since, naming what.
 */
export async function revertChange(
  deps: HistoryDeps,
  auth: SpaceAuth,
  seq: number,
): Promise<RevertResult> {
  const call = await historyRepo.callContaining(deps.db, auth.accountId, seq);
  if (!call || call.space_id !== auth.space.id) throw notFound('Change');
  return revertCall(deps, auth, call);
}

/** Reverts the newest call this credential made in the space that is not reverted yet. */
export async function undoLast(deps: HistoryDeps, auth: SpaceAuth): Promise<RevertResult> {
  const call = await historyRepo.latestCallBy(deps.db, auth.space.id, auth.actor);
  if (!call) {
    throw notFoundBecause(
      'Nothing to undo: this credential has no change here that is kept and not undone',
    );
  }
  return revertCall(deps, auth, call);
}

async function revertCall(
  deps: HistoryDeps,
  auth: SpaceAuth,
  call: historyRepo.CallRow,
): Promise<RevertResult> {
  const rows = await historyRepo.rowsOfCalls(deps.db, auth.space.id, [call.seq]);
  const changes = call.last_seq - call.seq + 1;
  await assertUnchangedSince(deps, auth, call, rows);
  const { seqs } = await deps.graph.write(auth, (scope) => undoRows(scope, rows), {
    reverts: call.seq,
  });
  return { reverted: { callSeq: call.seq, changes }, seqs };
}

/** What a row's version says, without what the write path keeps on its own (order, dates). */
function meaningOf(kind: historyRepo.HistoryKind, image: Image | undefined): string | undefined {
  if (!image) return undefined;
  const fields =
    kind === 'e'
      ? [image.name, image.type, image.metadata, image.aliases ?? []]
      : kind === 'o'
        ? [
            image.entity_id,
            image.content,
            image.metadata,
            iso(image.valid_from),
            iso(image.valid_to),
          ]
        : [image.from_id, image.to_id, image.type, iso(image.valid_from), iso(image.valid_to)];
  return JSON.stringify(fields);
}

/**
 * 409 naming what differs now from what the call left: a row it changed
 * that reads differently now, or a row of an entity it created that was
 * added since (reverting would delete it). Changes since that were
 * themselves undone do not count.
 */
async function assertUnchangedSince(
  deps: HistoryDeps,
  auth: SpaceAuth,
  call: historyRepo.CallRow,
  rows: historyRepo.HistoryRow[],
): Promise<void> {
  const own = new Set(rows.map((row) => row.row_id));
  const created = rows
    .filter((row) => row.kind === 'e' && row.before === null)
    .map((row) => row.row_id);
  const [ofRows, ofCreated] = await Promise.all([
    historyRepo.laterChanges(deps.db, auth.space.id, [...own], call.seq),
    historyRepo.laterChangesOfEntities(deps.db, auth.space.id, created, call.seq, 1000),
  ]);
  const later = [...ofRows, ...ofCreated.filter((row) => !own.has(row.row_id))];
  if (later.length === 0) return;
  const lastChange = new Map<string, historyRepo.HistoryRow>();
  for (const row of later) lastChange.set(row.row_id, row);
  const versions = await Versions.load(
    deps,
    auth.space.id,
    [...lastChange.keys(), ...later.map((row) => row.entity_id)],
    call.seq,
  );
  const differs = [...lastChange.values()].filter(
    (row) =>
      meaningOf(row.kind, versions.at(row.row_id, call.seq)) !==
      meaningOf(row.kind, versions.now(row.row_id)),
  );
  if (differs.length === 0) return;
  const details = differs.slice(0, CONFLICTS_SHOWN).map((row) => {
    const name =
      (versions.now(row.entity_id)?.name as string | undefined) ??
      (versions.at(row.entity_id, call.seq)?.name as string | undefined) ??
      row.entity_id;
    const what =
      row.kind === 'e'
        ? `entity "${name}"`
        : row.kind === 'o'
          ? `an observation of "${name}"`
          : `a relation of "${name}"`;
    return {
      field: `${kindName[row.kind]}:${row.row_id}`,
      message: `${what} changed at seq:${row.seq}, after this call`,
    };
  });
  throw conflict(
    `Cannot revert: ${differs.length === 1 ? 'something it changed has' : `${differs.length} things it changed have`} changed since (${details[0]!.message})`,
    details,
  );
}

const kindName = { e: 'entity', o: 'observation', r: 'relation' } as const;

/** Puts every row the call changed back as it was before it, through the write path. */
async function undoRows(scope: WriteScope, rows: historyRepo.HistoryRow[]): Promise<void> {
  const of = (kind: historyRepo.HistoryKind, op: 'created' | 'changed') =>
    rows.filter((row) => row.kind === kind && (op === 'created') === (row.before === null));
  // Present rows among those the call left changed or deleted: which it deleted.
  const changed = [...of('e', 'changed'), ...of('o', 'changed'), ...of('r', 'changed')];
  const present = await historyRepo.presentImages(
    scope.trx,
    scope.spaceId,
    changed.map((row) => row.row_id),
  );
  const deleted = (row: historyRepo.HistoryRow) => !present.has(row.row_id);

  // What it created goes: relations, then observations of entities that stay, then entities.
  await writes.deleteRelations(
    scope,
    of('r', 'created').map((row) => row.row_id),
  );
  const createdEntities = new Set(of('e', 'created').map((row) => row.row_id));
  await writes.removeObservations(
    scope,
    of('o', 'created')
      .filter((row) => !createdEntities.has(row.entity_id))
      .map((row) => ({ entityId: row.entity_id, id: row.row_id })),
  );
  await writes.deleteEntities(scope, [...createdEntities]);

  // Entities it changed are set back first, so that names they took (a merge's aliases) are free again.
  for (const row of of('e', 'changed').filter((row) => !deleted(row))) {
    const image = row.before!;
    await writes.updateEntity(scope, row.row_id, {
      name: image.name as string,
      type: image.type as string,
      metadata: image.metadata as Record<string, unknown>,
      // Images kept before migration 032 have no aliases.
      aliases: (image.aliases as string[] | undefined) ?? [],
    });
  }
  // What it deleted comes back with its ids: entities, then observations, then relations.
  await writes.restoreEntities(
    scope,
    of('e', 'changed')
      .filter(deleted)
      .map((row) => ({ id: row.row_id, image: row.before! })),
  );
  await writes.restoreObservations(
    scope,
    of('o', 'changed').map((row) => ({
      id: row.row_id,
      image: row.before!,
      deleted: deleted(row),
    })),
  );
  await writes.restoreRelations(
    scope,
    of('r', 'changed').map((row) => ({
      id: row.row_id,
      image: row.before!,
      deleted: deleted(row),
    })),
  );
}

// ── purge ────────────────────────────────────────────────────────────────────

/**
 * Deletes an entity for good (`?purge=true`, the person's explicit choice):
 * the entity as any delete does, then its history, its observations' and
 * relations', and the texts its change-log events carried. An entity deleted
 * earlier can be purged too, while its history is kept.
 */
export async function purgeEntity(deps: HistoryDeps, auth: SpaceAuth, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Entity');
  const { result: deleted } = await deps.graph.write(auth, (scope) =>
    writes.deleteEntities(scope, [id]),
  );
  const removed = await historyRepo.purgeEntityHistory(deps.db, auth.accountId, auth.space.id, id);
  if (deleted.length === 0 && removed === 0) throw notFound('Entity');
}

/**
 * `DELETE /api/entities/{id}`: the graph's delete, kept in history so that
 * `callSeq` reverts it, or with `purge` the entity deleted for good (no
 * `callSeq`). History owns the route because only it can purge.
 */
export async function deleteEntity(
  deps: HistoryDeps,
  auth: SpaceAuth,
  id: string,
  options: { purge: boolean },
): Promise<{ callSeq?: number }> {
  if (!options.purge) return deps.graph.deleteEntity(auth, id);
  await purgeEntity(deps, auth, id);
  return {};
}
