import {
  typeLabel,
  type Entity,
  type EntityInputParsed,
  type EntityList,
  type EntityUpdateInputParsed,
  type GraphData,
  type Observation,
  type ObservationInput,
  type Relation,
  type RelationList,
  type TypeList,
  type TypeSummary,
  type TypeListQueryParsed,
  TYPE_MAX,
} from '@engram/shared';
import { z } from 'zod';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as entityRepo from './entities.repository.js';
import * as observationRepo from './observations.repository.js';
import * as overviewRepo from './overview.repository.js';
import * as relationRepo from './relations.repository.js';
import * as searchRepo from './search.repository.js';
import * as typesRepo from './types.repository.js';
import * as writes from './graph.writes.js';
import type { WriteDeps } from './graph.writes.js';

/** The graph services' dependencies: the write path's, and how much one read may answer. */
export interface GraphDeps extends WriteDeps {
  /** How much one read may answer (READ_MAX_ROWS, READ_MAX_BYTES). */
  bounds: ReadBounds;
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

/** What fitting an answer's bytes reads of an entity and of an observation. */
export type SizedEntity = Pick<
  entityRepo.EntityRow,
  'id' | 'name' | 'type' | 'metadata' | 'observations_count'
>;
export type SizedObservation = Pick<
  observationRepo.ObservationRow,
  'entity_id' | 'content' | 'metadata'
>;

/** Entities cut to what one answer may hold, each with the observations it keeps. */
export interface BoundedEntities<
  E extends SizedEntity = entityRepo.EntityRow,
  O extends SizedObservation = observationRepo.ObservationRow,
> {
  rows: E[];
  observations: Map<string, O[]>;
  /** True when fewer entities are kept than were given (a limit was reached). */
  cut: boolean;
  /** The entity whose observations were cut to fit (it alone passes a limit), if any. */
  observationsCutOf: E | undefined;
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');
const jsonBytes = (value: unknown) => (value ? byteLength(JSON.stringify(value)) : 0);

/**
 * Keeps whole entities, in order, while they and their observations fit the
 * bounds; reads no more observation rows than it keeps (the kept counts are
 * known from `observations_count` before reading). The first entity is always
 * kept, its observations cut when it alone is too big. The MCP reads apply the
 * same rule in SQL (`readAnswer`, decision 017).
 */
export async function boundEntities(
  db: Db,
  accountId: string,
  given: entityRepo.EntityRow[],
  bounds: ReadBounds,
): Promise<BoundedEntities> {
  let rowsLeft = observationRowsOf(bounds);
  const plan: ObservationPlan = [];
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
  return fitBytes(plan, read, given.length, bounds);
}

/** Entities in answer order, each with the number of its observations read. */
type ObservationPlan<E extends SizedEntity = entityRepo.EntityRow> = {
  row: E;
  take: number;
}[];

/**
 * Keeps the planned entities, in order, while they and the observations read
 * for them fit the answer's bytes; the first is always kept, its observations
 * cut when it alone is too big.
 */
export function fitBytes<E extends SizedEntity, O extends SizedObservation>(
  plan: ObservationPlan<E>,
  read: O[],
  givenCount: number,
  bounds: ReadBounds,
): BoundedEntities<E, O> {
  const byEntity = new Map<string, O[]>();
  for (const observation of read) {
    const list = byEntity.get(observation.entity_id);
    if (list) list.push(observation);
    else byEntity.set(observation.entity_id, [observation]);
  }

  const rows: E[] = [];
  const observations = new Map<string, O[]>();
  let observationsCutOf: E | undefined;
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
  return { rows, observations, cut: rows.length < givenCount, observationsCutOf };
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
  return toEntities(await boundEntities(deps.db, accountId, given, deps.bounds));
}

function toEntities(bounded: BoundedEntities) {
  const entities = bounded.rows.map((row) => {
    const entity = toEntity(row, bounded.observations.get(row.id) ?? []);
    return row === bounded.observationsCutOf ? { ...entity, observationsTruncated: true } : entity;
  });
  return { entities, cut: bounded.cut || bounded.observationsCutOf !== undefined };
}

async function requireEntity(db: Db, accountId: string, id: string): Promise<entityRepo.EntityRow> {
  const row = isUuid(id) ? await entityRepo.findEntity(db, accountId, id) : undefined;
  if (!row) throw notFound('Entity');
  return row;
}

// ── entities ────────────────────────────────────────────────────────────────

export async function createEntity(
  deps: GraphDeps,
  auth: AuthContext,
  input: EntityInputParsed,
): Promise<Entity> {
  return writes.write(deps, auth, async (scope) => {
    const [created] = await writes.createEntities(scope, [input]);
    if (!created) throw conflict(`An entity named "${input.name}" already exists`, 'name');
    return toEntity(created.row, created.observations);
  });
}

export async function getEntity(deps: GraphDeps, auth: AuthContext, id: string): Promise<Entity> {
  const maxRows = observationRowsOf(deps.bounds);
  const found = isUuid(id)
    ? await entityRepo.findEntityWithObservations(deps.db, auth.accountId, id, maxRows)
    : undefined;
  if (!found) throw notFound('Entity');
  const take = Math.min(found.row.observations_count, maxRows);
  const bounded = fitBytes([{ row: found.row, take }], found.observations, 1, deps.bounds);
  return toEntities(bounded).entities[0]!;
}

/**
 * Where an entity list's page ended (its `nextCursor`): the list it belongs
 * to (`n`ewest first, or `s`earch), the last entity given and how many
 * entities came before the next page. The entity's id, not its place in the
 * order: that place is a server-wide counter, and a cursor tells nothing the
 * answer did not. The count is where the next page goes on from, as an
 * offset would, when that entity was deleted since (or no longer matches).
 */
const entityCursorShape = (list: 'n' | 's') =>
  z
    .tuple([
      z.literal(list),
      z.string().refine(isUuid),
      z
        .number()
        .int()
        .min(1)
        .max(2 ** 31 - 1),
    ])
    .transform(([, after, seen]) => ({ after, seen }));

export async function listEntities(
  deps: GraphDeps,
  auth: AuthContext,
  filter: {
    query?: string | undefined;
    types?: string[] | undefined;
    limit: number;
    offset: number;
    cursor?: string | undefined;
  },
): Promise<EntityList> {
  const list = filter.query ? 's' : 'n';
  // Named as the REST error handler names a query parameter ('query.limit').
  const at =
    filter.cursor === undefined
      ? undefined
      : decodeCursor(filter.cursor, entityCursorShape(list), 'query.cursor');
  const limit = Math.min(filter.limit, deps.bounds.maxRows);
  const start = at ? at.seen : filter.offset;
  const page = {
    types: filter.types,
    // One row past the page says whether another follows.
    limit: limit + 1,
    // Used only when the cursor's entity is gone: go on by count, without it.
    offset: at ? at.seen - 1 : filter.offset,
    after: at?.after,
  };
  const { rows, total } = filter.query
    ? await searchRepo.searchEntities(deps.db, auth.accountId, { ...page, query: filter.query })
    : await entityRepo.listEntities(deps.db, auth.accountId, page);
  const { entities, cut } = await withObservations(deps, auth.accountId, rows.slice(0, limit));
  const more = rows.length > limit || entities.length < Math.min(rows.length, limit);
  const next = start + entities.length;
  const last = entities[entities.length - 1];
  return {
    entities,
    total,
    nextOffset: more ? next : null,
    truncated: more && (cut || entities.length < filter.limit),
    nextCursor: more && last ? encodeCursor([list, last.id, next]) : null,
  };
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

// ── type lists ──────────────────────────────────────────────────────────────

/** A type list's cursor: the last type of the page before, with its count. */
export const typeKeyShape = z
  .tuple([
    z
      .number()
      .int()
      .min(1)
      .max(2 ** 31),
    z.string().min(1).max(TYPE_MAX),
  ])
  .transform(([count, type]): typesRepo.TypeKey => ({ count, type }));

export const typeKeyOf = (row: typesRepo.TypeKey): [number, string] => [row.count, row.type];

export type TypeListKind = 'entity' | 'relation';

const TYPE_TABLES = {
  entity: 'entity_type_counts',
  relation: 'relation_type_counts',
} as const;

/**
 * One page of the account's entity or relation types (issue 31, finding 4):
 * at most `limit` and READ_MAX_ROWS types, most common first then by name,
 * after `after`; `next` is where the following page starts (null at the end).
 */
export async function typesPage(
  deps: GraphDeps,
  accountId: string,
  kind: TypeListKind,
  page: { limit: number; after?: typesRepo.TypeKey | undefined; prefix?: string | undefined },
): Promise<{ types: TypeSummary[]; next: typesRepo.TypeKey | null }> {
  const limit = Math.min(page.limit, deps.bounds.maxRows);
  // One row past the page says whether another follows.
  const rows = await typesRepo.typeCountsPage(deps.db, TYPE_TABLES[kind], accountId, {
    ...page,
    limit: limit + 1,
  });
  const kept = rows.slice(0, limit);
  return {
    types: kept.map(({ type, count }) => ({ type, label: typeLabel(type), count })),
    next: rows.length > limit ? kept[kept.length - 1]! : null,
  };
}

/** The position a type list's `cursor` holds (400 naming `field` when it is not one we gave). */
const decodeTypeCursor = (cursor: string, field: string) =>
  decodeCursor(cursor, typeKeyShape, field);
const encodeTypeCursor = (key: typesRepo.TypeKey) => encodeCursor(typeKeyOf(key));

async function listTypes(
  deps: GraphDeps,
  auth: AuthContext,
  kind: TypeListKind,
  query: TypeListQueryParsed,
): Promise<TypeList> {
  const { types, next } = await typesPage(deps, auth.accountId, kind, {
    limit: query.limit,
    // Named as the REST error handler names a query parameter ('query.limit').
    after: query.cursor === undefined ? undefined : decodeTypeCursor(query.cursor, 'query.cursor'),
    prefix: query.prefix || undefined,
  });
  return { types, nextCursor: next ? encodeTypeCursor(next) : null };
}

export const listEntityTypes = (deps: GraphDeps, auth: AuthContext, query: TypeListQueryParsed) =>
  listTypes(deps, auth, 'entity', query);

export async function updateEntity(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
  input: EntityUpdateInputParsed,
): Promise<Entity> {
  return writes.write(deps, auth, async (scope) => {
    const row = await writes.updateEntity(scope, id, input);
    const { entities } = await withObservations({ ...deps, db: scope.trx }, auth.accountId, [row]);
    return entities[0]!;
  });
}

export async function deleteEntity(deps: GraphDeps, auth: AuthContext, id: string): Promise<void> {
  await writes.write(deps, auth, async (scope) => {
    const [deleted] = await writes.deleteEntities(scope, [id]);
    if (!deleted) throw notFound('Entity');
  });
}

/** Appends observations; blank texts and texts the entity already has are skipped. */
export async function addObservations(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
  items: ObservationInput[],
): Promise<{ entity: Entity; added: Observation[] }> {
  return writes.write(deps, auth, async (scope) => {
    await requireEntity(scope.trx, auth.accountId, id);
    const added = await writes.addObservations(scope, [
      { entityId: id, observations: items, field: 'observations' },
    ]);
    const row = await entityRepo.findEntity(scope.trx, auth.accountId, id);
    const { entities } = await withObservations({ ...deps, db: scope.trx }, auth.accountId, [row!]);
    return { entity: entities[0]!, added: (added.get(id) ?? []).map(toObservation) };
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
  return writes.write(deps, auth, async (scope) => {
    const { trx } = scope;
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
    const [row] = await writes.createRelations(scope, [
      { fromId: from.id, toId: to.id, type: input.type },
    ]);
    if (!row) throw conflict(`"${from.name}" already ${input.type} "${to.name}"`, 'type');
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
  return writes.write(deps, auth, async (scope) => {
    const row = await writes.updateRelation(scope, id, input.type);
    return relationWithEnds(scope.trx, auth.accountId, row);
  });
}

export async function deleteRelation(
  deps: GraphDeps,
  auth: AuthContext,
  id: string,
): Promise<void> {
  await writes.write(deps, auth, async (scope) => {
    const [row] = await writes.deleteRelations(scope, [id]);
    if (!row) throw notFound('Relation');
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

export const listRelationTypes = (deps: GraphDeps, auth: AuthContext, query: TypeListQueryParsed) =>
  listTypes(deps, auth, 'relation', query);

// ── graph reads ─────────────────────────────────────────────────────────────

async function graphOf(db: Db, accountId: string, ids: string[]): Promise<GraphData> {
  const [nodes, relations] = await Promise.all([
    relationRepo.nodesByIds(db, accountId, ids),
    relationRepo.relationsAmong(db, accountId, ids),
  ]);
  const order = new Map(ids.map((id, index) => [id, index]));
  nodes.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return toGraphData(nodes, relations);
}

function toGraphData(
  nodes: relationRepo.NodeRow[],
  relations: Pick<relationRepo.RelationRow, 'id' | 'from_id' | 'to_id' | 'type'>[],
): GraphData {
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
  if (!isUuid(id)) throw notFound('Entity');
  const { nodes, relations } = await relationRepo.neighbourhood(
    deps.db,
    auth.accountId,
    id,
    options,
  );
  if (nodes.length === 0) throw notFound('Entity');
  return toGraphData(nodes, relations);
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
  const ids = await relationRepo.walk(db, auth.accountId, seeds, options);
  if (ids.length < options.limit) {
    ids.push(
      ...(await relationRepo.bestConnected(db, auth.accountId, ids, options.limit - ids.length)),
    );
  }
  return graphOf(db, auth.accountId, ids);
}

export type GraphOverview = overviewRepo.OverviewRows;

/** The dashboard's view of the account's graph (totals, daily creations, newest entities, types). */
export async function overview(
  db: Db,
  accountId: string,
  options: { since: string; recent: number; types: number },
): Promise<GraphOverview> {
  return overviewRepo.overview(db, accountId, options);
}
