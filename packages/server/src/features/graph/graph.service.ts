import {
  formatBytes,
  typeLabel,
  UNLIMITED,
  type Entity,
  type GraphEventType,
  type EntityInputParsed,
  type EntityList,
  type EntityUpdateInputParsed,
  type GraphData,
  type Observation,
  type ObservationInput,
  type Relation,
  type RelationList,
  type TypeSummary,
} from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import {
  AppError,
  badRequest,
  conflict,
  fromDatabaseError,
  notFound,
  planLimit,
} from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { currentPlan } from '../billing/billing.service.js';
import * as changeRepo from './changes.repository.js';
import * as entityRepo from './entities.repository.js';
import * as observationRepo from './observations.repository.js';
import * as relationRepo from './relations.repository.js';
import * as searchRepo from './search.repository.js';

/** A committed change, as the change log recorded it. */
export interface ChangeEvent {
  accountId: string;
  seq: number;
  type: GraphEventType;
  payload: Record<string, unknown>;
  at: string;
}

export interface GraphDeps {
  db: Db;
  /** The one clock: change events carry its time, live and replayed alike. */
  now: () => Date;
  /** How much one read may answer (READ_MAX_ROWS, READ_MAX_BYTES). */
  bounds: ReadBounds;
  /** Receives each write's events after its transaction commits (realtime fan-out). */
  publish?: (events: ChangeEvent[]) => void;
}

/**
 * The most one read answers (docs/security.md): entities or relations per
 * answer, observations per answer (ten per entity row on average), and bytes
 * of names, types, metadata and observation text. Past them an answer is cut
 * at a whole entity and says so.
 */
export interface ReadBounds {
  maxRows: number;
  maxBytes: number;
}

/** Observation rows one answer may hold: ten per entity row it may hold. */
export const observationRowsOf = (bounds: ReadBounds) => bounds.maxRows * 10;

/** Entities cut to what one answer may hold, each with the observations it keeps. */
export interface BoundedEntities {
  rows: entityRepo.EntityRow[];
  observations: Map<string, observationRepo.ObservationRow[]>;
  /** True when fewer entities are kept than were given (a limit was reached). */
  cut: boolean;
  /** The entity whose observations were cut to fit (it alone passes a limit), if any. */
  observationsCutOf: entityRepo.EntityRow | undefined;
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');
const jsonBytes = (value: unknown) => (value ? byteLength(JSON.stringify(value)) : 0);

/**
 * Keeps whole entities, in order, while they and their observations fit the
 * bounds; reads no more observation rows than it keeps (the kept counts are
 * known from `observations_count` before reading). The first entity is always
 * kept, its observations cut when it alone is too big.
 */
export async function boundEntities(
  db: Db,
  accountId: string,
  given: entityRepo.EntityRow[],
  bounds: ReadBounds,
): Promise<BoundedEntities> {
  let rowsLeft = observationRowsOf(bounds);
  const plan: { row: entityRepo.EntityRow; take: number }[] = [];
  for (const row of given.slice(0, bounds.maxRows)) {
    if (row.observations_count > rowsLeft && plan.length > 0) break;
    const take = Math.min(row.observations_count, rowsLeft);
    plan.push({ row, take });
    rowsLeft -= take;
  }
  const read = await observationRepo.takeObservations(
    db,
    accountId,
    plan.map(({ row, take }) => ({ id: row.id, take })),
  );
  const byEntity = new Map<string, observationRepo.ObservationRow[]>();
  for (const observation of read) {
    const list = byEntity.get(observation.entity_id);
    if (list) list.push(observation);
    else byEntity.set(observation.entity_id, [observation]);
  }

  const rows: entityRepo.EntityRow[] = [];
  const observations = new Map<string, observationRepo.ObservationRow[]>();
  let observationsCutOf: entityRepo.EntityRow | undefined;
  let bytesLeft = bounds.maxBytes;
  for (const { row, take } of plan) {
    const own = byteLength(row.name) + byteLength(row.type) + jsonBytes(row.metadata);
    const list = byEntity.get(row.id) ?? [];
    const sizes = list.map((o) => byteLength(o.content) + jsonBytes(o.metadata));
    const total = own + sizes.reduce((sum, size) => sum + size, 0);
    if (total > bytesLeft && rows.length > 0) break;
    let kept = list.length;
    if (total > bytesLeft) {
      // The first entity alone is too big: keep the observations that fit.
      let used = own;
      kept = 0;
      while (kept < sizes.length && used + sizes[kept]! <= bytesLeft) used += sizes[kept++]!;
    }
    if (kept < row.observations_count || take < row.observations_count) observationsCutOf = row;
    rows.push(row);
    observations.set(row.id, list.slice(0, kept));
    bytesLeft -= total;
  }
  return { rows, observations, cut: rows.length < given.length, observationsCutOf };
}

export interface WriteScope {
  trx: Db;
  emit(type: GraphEventType, payload: Record<string, unknown>): Promise<void>;
}

/**
 * Runs a write in one transaction with its change-log events; publishes the
 * events only after commit, so a rolled-back change publishes nothing. A race
 * that slips past a service's own checks surfaces as a constraint violation,
 * which becomes the same 409/404 the check would have given.
 */
export async function write<T>(
  deps: GraphDeps,
  auth: AuthContext,
  fn: (scope: WriteScope) => Promise<T>,
): Promise<T> {
  const events: ChangeEvent[] = [];
  try {
    const result = await deps.db.transaction().execute(async (trx) => {
      const { storedBytes: bytesBefore } = await changeRepo.lockAccount(trx, auth.accountId);
      const outcome = await fn({
        trx,
        async emit(type, payload) {
          const at = deps.now();
          const seq = await changeRepo.appendEvent(trx, auth.accountId, {
            type,
            payload,
            actor: { ...auth.actor },
            at,
          });
          events.push({ accountId: auth.accountId, seq, type, payload, at: at.toISOString() });
        },
      });
      if (events.length > 0) await assertStorageLimits(trx, auth.accountId, bytesBefore, events);
      return outcome;
    });
    if (events.length > 0) deps.publish?.(events);
    return result;
  } catch (error) {
    throw fromDatabaseError(error) ?? error;
  }
}

/**
 * Refuses (rolls back) a write that leaves the account over its plan's
 * storage or an entity over its observations per entity. Checked before
 * commit under the account lock, so concurrent writes never overshoot; a write
 * that frees space (a delete) always passes.
 */
async function assertStorageLimits(
  trx: Db,
  accountId: string,
  bytesBefore: number,
  events: ChangeEvent[],
): Promise<void> {
  const plan = await currentPlan(trx, accountId);
  const { maxStorageBytes, maxObservationsPerEntity } = plan.features;
  if (maxStorageBytes !== UNLIMITED) {
    const bytes = await entityRepo.storedBytes(trx, accountId);
    if (bytes > maxStorageBytes && bytes > bytesBefore) {
      throw planLimit(
        `Storage limit reached: the ${plan.name} plan allows ${formatBytes(maxStorageBytes)} of stored memory. Delete something or upgrade your plan.`,
      );
    }
  }
  if (maxObservationsPerEntity !== UNLIMITED) {
    const grown = events
      .filter((event) => event.type !== 'entity_deleted' && !event.type.startsWith('relation_'))
      .map((event) => event.payload.entityId)
      .filter((id): id is string => typeof id === 'string');
    const over = await entityRepo.entityOverObservations(
      trx,
      accountId,
      [...new Set(grown)],
      maxObservationsPerEntity,
    );
    if (over) {
      throw planLimit(
        `Observation limit reached: the ${plan.name} plan allows ${maxObservationsPerEntity.toLocaleString('en-US')} observations per entity ("${over.name}" would have ${over.observations_count.toLocaleString('en-US')}). Upgrade your plan to add more.`,
      );
    }
  }
}

// ── shaping rows into wire objects ──────────────────────────────────────────

const iso = (date: Date) => date.toISOString();

function toObservation(row: observationRepo.ObservationRow): Observation {
  return {
    id: row.id,
    content: row.content,
    createdAt: iso(row.created_at),
    ...(row.metadata ? { metadata: row.metadata } : {}),
  };
}

function toEntity(
  row: entityRepo.EntityRow,
  observations: observationRepo.ObservationRow[],
): Entity {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    metadata: row.metadata,
    observations: observations.map(toObservation),
    observationsCount: row.observations_count,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function toRelation(row: relationRepo.RelationWithEndsRow): Relation {
  return {
    id: row.id,
    fromEntityId: row.from_id,
    toEntityId: row.to_id,
    type: row.type,
    relationType: row.type,
    createdAt: iso(row.created_at),
    fromEntity: { id: row.from_id, name: row.from_name, type: row.from_type },
    toEntity: { id: row.to_id, name: row.to_name, type: row.to_type },
  };
}

/** The entities that fit one answer, with their observations; `cut` when some did not. */
async function withObservations(deps: GraphDeps, accountId: string, given: entityRepo.EntityRow[]) {
  const bounded = await boundEntities(deps.db, accountId, given, deps.bounds);
  const entities = bounded.rows.map((row) => {
    const entity = toEntity(row, bounded.observations.get(row.id) ?? []);
    return row === bounded.observationsCutOf ? { ...entity, observationsTruncated: true } : entity;
  });
  return { entities, cut: bounded.cut || bounded.observationsCutOf !== undefined };
}

/** Drops blank texts and repeats (first one wins); trims nothing else. */
export function cleanObservations(items: ObservationInput[]) {
  const seen = new Set<string>();
  const kept: { content: string; metadata?: Record<string, unknown> }[] = [];
  for (const item of items) {
    const observation = typeof item === 'string' ? { content: item } : item;
    const content = observation.content.trim();
    if (content.length === 0 || seen.has(content)) continue;
    seen.add(content);
    kept.push(observation.metadata ? { content, metadata: observation.metadata } : { content });
  }
  return kept;
}

async function requireEntity(db: Db, accountId: string, id: string): Promise<entityRepo.EntityRow> {
  const row = isUuid(id) ? await entityRepo.findEntity(db, accountId, id) : undefined;
  if (!row) throw notFound('Entity');
  return row;
}

export async function assertEntityRoom(db: Db, accountId: string, adding: number): Promise<void> {
  const plan = await currentPlan(db, accountId);
  const max = plan.features.maxEntities;
  if (max === UNLIMITED) return;
  const count = await entityRepo.countEntities(db, accountId);
  if (count + adding > max) {
    throw planLimit(
      `Entity limit reached: the ${plan.name} plan allows ${max.toLocaleString('en-US')} entities. Upgrade your plan to add more.`,
    );
  }
}

// ── entities ────────────────────────────────────────────────────────────────

export async function createEntity(
  deps: GraphDeps,
  auth: AuthContext,
  input: EntityInputParsed,
): Promise<Entity> {
  return write(deps, auth, async ({ trx, emit }) => {
    await assertEntityRoom(trx, auth.accountId, 1);
    const row = await entityRepo.insertEntity(trx, auth.accountId, input);
    if (!row) throw conflict(`An entity named "${input.name}" already exists`, 'name');
    await entityRepo.adjustTypeCount(trx, auth.accountId, row.type, 1);
    const observations = await observationRepo.insertObservations(
      trx,
      auth.accountId,
      row.id,
      cleanObservations(input.observations),
    );
    const created = { ...row, observations_count: observations.length };
    await emit('entity_created', {
      entityId: row.id,
      id: row.id,
      name: row.name,
      type: row.type,
    });
    return toEntity(created, observations);
  });
}

export async function getEntity(deps: GraphDeps, auth: AuthContext, id: string): Promise<Entity> {
  const row = await requireEntity(deps.db, auth.accountId, id);
  const { entities } = await withObservations(deps, auth.accountId, [row]);
  return entities[0]!;
}

export async function listEntities(
  deps: GraphDeps,
  auth: AuthContext,
  filter: {
    query?: string | undefined;
    types?: string[] | undefined;
    limit: number;
    offset: number;
  },
): Promise<EntityList> {
  const page = { ...filter, limit: Math.min(filter.limit, deps.bounds.maxRows) };
  const { rows, total } = page.query
    ? await searchRepo.searchEntities(deps.db, auth.accountId, { ...page, query: page.query })
    : await entityRepo.listEntities(deps.db, auth.accountId, page);
  const { entities, cut } = await withObservations(deps, auth.accountId, rows);
  return { entities, total, ...pageEnd(filter, entities.length, total, cut) };
}

/**
 * Where the next page starts, and whether this one stopped short of what was
 * asked because of the read limits rather than the end of the list.
 */
function pageEnd(
  asked: { limit: number; offset: number },
  returned: number,
  total: number,
  cut: boolean,
): { nextOffset: number | null; truncated: boolean } {
  const next = asked.offset + returned;
  const more = next < total;
  return {
    nextOffset: more ? next : null,
    truncated: more && (cut || returned < asked.limit),
  };
}

export async function listEntityTypes(deps: GraphDeps, auth: AuthContext): Promise<TypeSummary[]> {
  const counts = await entityRepo.listTypeCounts(deps.db, auth.accountId);
  return counts.map(({ type, count }) => ({
    type,
    label: typeLabel(type),
    count,
  }));
}

export async function updateEntity(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
  input: EntityUpdateInputParsed,
): Promise<Entity> {
  return write(deps, auth, async ({ trx, emit }) => {
    const before = await requireEntity(trx, auth.accountId, id);
    if (input.name !== before.name) {
      const [clash] = await entityRepo.findEntitiesByName(trx, auth.accountId, [input.name]);
      if (clash) throw conflict(`An entity named "${input.name}" already exists`, 'name');
    }
    const row = await entityRepo.updateEntity(trx, auth.accountId, id, input);
    if (!row) throw notFound('Entity');
    if (row.type !== before.type) {
      await entityRepo.adjustTypeCount(trx, auth.accountId, before.type, -1);
      await entityRepo.adjustTypeCount(trx, auth.accountId, row.type, 1);
    }
    if (input.observations) {
      await replaceObservations(trx, auth.accountId, id, cleanObservations(input.observations));
    }
    await emit('entity_updated', {
      entityId: id,
      id,
      name: row.name,
      type: row.type,
    });
    const fresh = await entityRepo.findEntity(trx, auth.accountId, id);
    const { entities } = await withObservations({ ...deps, db: trx }, auth.accountId, [fresh!]);
    return entities[0]!;
  });
}

/** Makes `wanted` the entity's list: unchanged texts keep their ids and dates. */
async function replaceObservations(
  trx: Db,
  accountId: string,
  entityId: string,
  wanted: { content: string; metadata?: Record<string, unknown> }[],
): Promise<void> {
  const existing = await observationRepo.listObservations(trx, accountId, [entityId]);
  const existingByContent = new Map(existing.map((row) => [row.content, row]));
  const wantedContents = new Set(wanted.map((item) => item.content));
  await observationRepo.deleteObservations(
    trx,
    accountId,
    entityId,
    existing.filter((row) => !wantedContents.has(row.content)).map((row) => row.id),
  );
  const added = wanted.filter((item) => !existingByContent.has(item.content));
  await observationRepo.insertObservations(trx, accountId, entityId, added);
  // Order follows the given list; new ones were appended, so renumber everything.
  const all = await observationRepo.listObservations(trx, accountId, [entityId]);
  const rowByContent = new Map(all.map((row) => [row.content, row]));
  for (const [position, item] of wanted.entries()) {
    const row = rowByContent.get(item.content)!;
    const metadataChanged = item.metadata && existingByContent.has(item.content);
    if (row.position !== position || metadataChanged) {
      await observationRepo.updateObservation(trx, accountId, row.id, {
        position,
        metadata: metadataChanged ? item.metadata : undefined,
      });
    }
  }
}

export async function deleteEntity(deps: GraphDeps, auth: AuthContext, id: string): Promise<void> {
  await write(deps, auth, async ({ trx, emit }) => {
    await requireEntity(trx, auth.accountId, id);
    const row = await entityRepo.deleteEntity(trx, auth.accountId, id);
    if (!row) throw notFound('Entity');
    await entityRepo.adjustTypeCount(trx, auth.accountId, row.type, -1);
    await emit('entity_deleted', {
      entityId: id,
      id,
      name: row.name,
      type: row.type,
    });
  });
}

/** Appends observations; blank texts and texts the entity already has are skipped. */
export async function addObservations(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
  items: ObservationInput[],
): Promise<{ entity: Entity; added: Observation[] }> {
  const cleaned = cleanObservations(items);
  if (cleaned.length === 0) {
    throw badRequest('observations', 'Give at least one observation that is not blank');
  }
  return write(deps, auth, async ({ trx, emit }) => {
    await requireEntity(trx, auth.accountId, id);
    const existing = new Set(
      (await observationRepo.listObservations(trx, auth.accountId, [id])).map((row) => row.content),
    );
    const fresh = cleaned.filter((item) => !existing.has(item.content));
    const added = await observationRepo.insertObservations(trx, auth.accountId, id, fresh);
    if (added.length > 0) {
      await entityRepo.touchEntity(trx, auth.accountId, id);
      await emit('observation_added', {
        entityId: id,
        observations: added.map((row) => ({
          id: row.id,
          content: row.content,
        })),
      });
    }
    const row = await entityRepo.findEntity(trx, auth.accountId, id);
    const { entities } = await withObservations({ ...deps, db: trx }, auth.accountId, [row!]);
    return { entity: entities[0]!, added: added.map(toObservation) };
  });
}

// ── relations ───────────────────────────────────────────────────────────────

async function relationWithEnds(db: Db, accountId: string, row: relationRepo.RelationRow) {
  const [from, to] = await Promise.all([
    entityRepo.findEntity(db, accountId, row.from_id),
    entityRepo.findEntity(db, accountId, row.to_id),
  ]);
  return toRelation({
    ...row,
    from_name: from?.name ?? 'Unknown',
    from_type: from?.type ?? 'unknown',
    to_name: to?.name ?? 'Unknown',
    to_type: to?.type ?? 'unknown',
  });
}

export async function createRelation(
  deps: GraphDeps,
  auth: AuthContext,
  input: { fromEntityId: string; toEntityId: string; type: string },
): Promise<Relation> {
  if (input.fromEntityId === input.toEntityId) {
    throw badRequest('toEntityId', 'Source and target entities cannot be the same');
  }
  return write(deps, auth, async ({ trx, emit }) => {
    const from = isUuid(input.fromEntityId)
      ? await entityRepo.findEntity(trx, auth.accountId, input.fromEntityId)
      : undefined;
    if (!from)
      throw new AppError(404, 'NOT_FOUND', 'Source entity not found', [
        { field: 'fromEntityId', message: 'Source entity not found' },
      ]);
    const to = isUuid(input.toEntityId)
      ? await entityRepo.findEntity(trx, auth.accountId, input.toEntityId)
      : undefined;
    if (!to)
      throw new AppError(404, 'NOT_FOUND', 'Target entity not found', [
        { field: 'toEntityId', message: 'Target entity not found' },
      ]);
    const row = await relationRepo.insertRelation(trx, auth.accountId, {
      fromId: from.id,
      toId: to.id,
      type: input.type,
    });
    if (!row) throw conflict(`"${from.name}" already ${input.type} "${to.name}"`, 'type');
    await emit('relation_created', {
      relationId: row.id,
      id: row.id,
      fromEntityId: row.from_id,
      toEntityId: row.to_id,
      relationType: row.type,
    });
    return toRelation({
      ...row,
      from_name: from.name,
      from_type: from.type,
      to_name: to.name,
      to_type: to.type,
    });
  });
}

export async function updateRelation(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
  input: { type: string },
): Promise<Relation> {
  return write(deps, auth, async ({ trx, emit }) => {
    const before = isUuid(id)
      ? await relationRepo.findRelation(trx, auth.accountId, id)
      : undefined;
    if (!before) throw notFound('Relation');
    if (before.type !== input.type) {
      const clash = await relationRepo.findRelationByTriple(trx, auth.accountId, {
        fromId: before.from_id,
        toId: before.to_id,
        type: input.type,
      });
      if (clash) throw conflict('An identical relation already exists', 'type');
    }
    const row = await relationRepo.updateRelationType(trx, auth.accountId, id, input.type);
    if (!row) throw notFound('Relation');
    await emit('relation_updated', {
      relationId: id,
      id,
      fromEntityId: row.from_id,
      toEntityId: row.to_id,
      relationType: row.type,
    });
    return relationWithEnds(trx, auth.accountId, row);
  });
}

export async function deleteRelation(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
): Promise<void> {
  await write(deps, auth, async ({ trx, emit }) => {
    const row = isUuid(id) ? await relationRepo.deleteRelation(trx, auth.accountId, id) : undefined;
    if (!row) throw notFound('Relation');
    await emit('relation_deleted', {
      relationId: id,
      id,
      fromEntityId: row.from_id,
      toEntityId: row.to_id,
      relationType: row.type,
    });
  });
}

export async function listRelations(
  deps: GraphDeps,
  auth: AuthContext,
  filter: {
    query?: string | undefined;
    relationTypes?: string[] | undefined;
    entityId?: string | undefined;
    limit: number;
    offset: number;
  },
): Promise<RelationList> {
  // An entityId that is no uuid names no entity: nothing touches it.
  if (filter.entityId !== undefined && !isUuid(filter.entityId)) {
    return { relations: [], total: 0, nextOffset: null, truncated: false };
  }
  const { rows, total } = await relationRepo.listRelations(deps.db, auth.accountId, {
    ...filter,
    limit: Math.min(filter.limit, deps.bounds.maxRows),
    types: filter.relationTypes,
  });
  // Relations hold names and a type only: cut by bytes at a whole relation.
  let bytesLeft = deps.bounds.maxBytes;
  const kept = rows.filter((row) => {
    bytesLeft -= byteLength(row.from_name) + byteLength(row.to_name) + 2 * byteLength(row.type);
    return bytesLeft >= 0;
  });
  const relations = kept.map(toRelation);
  return {
    relations,
    total,
    ...pageEnd(filter, relations.length, total, kept.length < rows.length),
  };
}

export async function listRelationTypes(
  deps: GraphDeps,
  auth: AuthContext,
): Promise<TypeSummary[]> {
  const counts = await relationRepo.listRelationTypeCounts(deps.db, auth.accountId);
  return counts.map(({ type, count }) => ({
    type,
    label: typeLabel(type),
    count,
  }));
}

// ── graph reads ─────────────────────────────────────────────────────────────

/**
 * Breadth-first from `start`, both directions, one indexed query per level,
 * stopping at `depth` levels or `limit` entities. Returns ids nearest first.
 */
export async function walk(
  db: Db,
  accountId: string,
  start: string[],
  depth: number,
  limit: number,
): Promise<string[]> {
  const seen = start.slice(0, limit);
  let frontier = seen;
  for (let level = 0; level < depth && frontier.length > 0 && seen.length < limit; level++) {
    frontier = await relationRepo.neighbours(db, accountId, frontier, seen, limit - seen.length);
    seen.push(...frontier);
  }
  return seen;
}

async function graphOf(db: Db, accountId: string, ids: string[]): Promise<GraphData> {
  const [nodes, relations] = await Promise.all([
    relationRepo.nodesByIds(db, accountId, ids),
    relationRepo.relationsAmong(db, accountId, ids),
  ]);
  const order = new Map(ids.map((id, index) => [id, index]));
  nodes.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return {
    entities: nodes.map((node) => ({
      id: node.id,
      name: node.name,
      type: node.type,
      observationsCount: node.observations_count,
    })),
    relations: relations.map((row) => ({
      id: row.id,
      fromEntityId: row.from_id,
      toEntityId: row.to_id,
      relationType: row.type,
      type: row.type,
    })),
  };
}

/** The neighbourhood of one entity to `depth`, at most `limit` entities. */
export async function graphAround(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
  options: { depth: number; limit: number },
): Promise<GraphData> {
  const root = await requireEntity(deps.db, auth.accountId, id);
  const ids = await walk(deps.db, auth.accountId, [root.id], options.depth, options.limit);
  return graphOf(deps.db, auth.accountId, ids);
}

/**
 * Without a root: seeds from the best-connected entities, walks their
 * neighbourhood to `depth`, then tops up with the next best-connected
 * entities until `limit` is reached or the graph is exhausted.
 */
export async function graphOverview(
  deps: GraphDeps,
  auth: AuthContext,
  options: { depth: number; limit: number },
): Promise<GraphData> {
  const { db } = deps;
  const seedCount = Math.max(1, Math.ceil(options.limit / 10));
  const seeds = await relationRepo.bestConnected(db, auth.accountId, [], seedCount);
  const ids = await walk(db, auth.accountId, seeds, options.depth, options.limit);
  if (ids.length < options.limit) {
    ids.push(
      ...(await relationRepo.bestConnected(db, auth.accountId, ids, options.limit - ids.length)),
    );
  }
  return graphOf(db, auth.accountId, ids);
}

// ── change log ──────────────────────────────────────────────────────────────

/**
 * Committed events after `seq`, oldest first, at most `limit`; the reader
 * resumes from the last seq it saw without gaps or repeats.
 */
export async function eventsSince(
  deps: GraphDeps,
  auth: AuthContext,
  seq: number,
  limit: number,
): Promise<ChangeEvent[]> {
  const rows = await changeRepo.eventsSince(deps.db, auth.accountId, seq, limit);
  return rows.map((row) => ({
    accountId: auth.accountId,
    seq: Number(row.seq),
    type: row.type as GraphEventType,
    payload: row.payload,
    at: row.at.toISOString(),
  }));
}

/** The seq of the account's latest committed change (0 when none). */
export async function latestSeq(deps: GraphDeps, auth: AuthContext): Promise<number> {
  return changeRepo.latestSeq(deps.db, auth.accountId);
}
