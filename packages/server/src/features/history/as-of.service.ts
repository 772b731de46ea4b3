import type { Entity, EntityList, GraphData, RecallAnswer, RelationList } from '@engram/shared';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import {
  fitBytes,
  observationRowsOf,
  toGraphData,
  toRelation,
  type EntityFilter,
  type MemoryGraph,
  type Page,
  type RelationFilter,
} from '../graph/index.js';
import type { HistoryDeps } from './history-deps.js';
import * as asOfRepo from './as-of.repository.js';

/**
 * The reads as of a past seq (`asOf`, docs/history.md), in the same shapes
 * and read limits as the present's. The present's reads stay their own
 * (one index away); these read the present with the rows changed since put
 * back (history.repository), the slower path.
 */

/** A question as recall asks it of the past (recall's `RecallInput`, without its time). */
export interface RecallQuestion {
  query: string;
  limit: number;
  entityTypes?: string[] | undefined;
  entityNames?: string[] | undefined;
}

type EntityAt = asOfRepo.EntityAtRow & { observations_count: number };
type ObservationAt = asOfRepo.ObservationAtRow;

/** The entities that fit one answer's limits, with their observations as of `seq`. */
async function withObservationsAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  seq: number,
  rows: EntityAt[],
) {
  const budget = observationRowsOf(deps.bounds);
  const observations = await asOfRepo.observationsAt(
    deps.db,
    auth.space.id,
    seq,
    rows.map((row) => row.id),
    budget,
  );
  // Entities in order while their observations fit the row budget (the first always).
  let left = budget;
  const plan = rows.flatMap((row, index) => {
    if (index > 0 && row.observations_count > left) return [];
    const take = Math.min(row.observations_count, left);
    left -= take;
    return [{ row, take }];
  });
  const byEntity = new Map<string, ObservationAt[]>();
  for (const observation of observations) {
    const list = byEntity.get(observation.entity_id) ?? [];
    list.push(observation);
    byEntity.set(observation.entity_id, list);
  }
  const given = plan.flatMap(({ row, take }) => (byEntity.get(row.id) ?? []).slice(0, take));
  return fitBytes(plan, given, rows.length, deps.bounds);
}

const iso = (date: Date) => new Date(date).toISOString();

function toEntityAt(row: EntityAt, observations: ObservationAt[], cut: boolean): Entity {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    aliases: row.aliases ?? [],
    metadata: row.metadata ?? {},
    observations: observations.map((observation) => ({
      id: observation.id,
      content: observation.content,
      createdAt: iso(observation.created_at),
      ...(observation.metadata ? { metadata: observation.metadata } : {}),
      ...(observation.valid_from ? { validFrom: iso(observation.valid_from) } : {}),
      ...(observation.valid_to ? { validTo: iso(observation.valid_to) } : {}),
    })),
    observationsCount: row.observations_count,
    ...(cut ? { observationsTruncated: true } : {}),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

// ── REST ─────────────────────────────────────────────────────────────────────

/** The entity as of `seq`; 404 when it did not exist then. */
async function entityThen(deps: HistoryDeps, auth: SpaceAuth, id: string, seq: number) {
  if (!isUuid(id)) throw notFound('Entity');
  const { rows } = await asOfRepo.entitiesAt(
    deps.db,
    auth.space.id,
    seq,
    { ids: [id] },
    {
      limit: 1,
    },
  );
  if (!rows[0]) throw notFound('Entity');
  return rows[0];
}

export async function getEntityAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  id: string,
  seq: number,
): Promise<Entity> {
  const rows = [await entityThen(deps, auth, id, seq)];
  const bounded = await withObservationsAt(deps, auth, seq, rows);
  const row = bounded.rows[0]!;
  return toEntityAt(row, bounded.observations.get(row.id) ?? [], bounded.observationsCutOf === row);
}

/** Entities as of `seq`: newest first, or those matching `query` (best first); paged by offset. */
export async function listEntitiesAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  filter: EntityFilter,
  seq: number,
): Promise<EntityList> {
  const limit = Math.min(filter.limit, deps.bounds.maxRows);
  const pick = filter.query
    ? { query: filter.query, types: filter.types }
    : { all: true as const, types: filter.types };
  const { rows, total } = await asOfRepo.entitiesAt(deps.db, auth.space.id, seq, pick, {
    limit,
    offset: filter.offset,
  });
  const bounded = await withObservationsAt(deps, auth, seq, rows);
  const entities = bounded.rows.map((row) =>
    toEntityAt(row, bounded.observations.get(row.id) ?? [], bounded.observationsCutOf === row),
  );
  const next = filter.offset + entities.length;
  return {
    entities,
    total,
    nextOffset: next < total ? next : null,
    truncated: bounded.cut || bounded.observationsCutOf !== undefined,
    nextCursor: null,
  };
}

/** The relations list as of `seq` (same filters and shape; paged by offset). */
export async function listRelationsAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  filter: RelationFilter,
  seq: number,
): Promise<RelationList> {
  if (filter.entityId !== undefined && !isUuid(filter.entityId)) {
    return { relations: [], total: 0, nextOffset: null, truncated: false };
  }
  const limit = Math.min(filter.limit, deps.bounds.maxRows);
  const { rows, total } = await asOfRepo.relationListAt(deps.db, auth.space.id, seq, {
    ...filter,
    limit,
    types: filter.relationTypes,
  });
  const relations = rows.map((row) => toRelation(row));
  const next = filter.offset + relations.length;
  return { relations, total, nextOffset: next < total ? next : null, truncated: false };
}

/** Entity ids within `depth` relations of `start` as of `seq`, at most `limit`, nearest first. */
async function walkAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  seq: number,
  start: string[],
  options: { depth: number; limit: number },
): Promise<string[]> {
  const seen = new Set(start.slice(0, options.limit));
  let frontier = [...seen];
  for (let depth = 0; depth < options.depth && frontier.length > 0; depth++) {
    const touching = await asOfRepo.relationsAt(deps.db, auth.space.id, seq, frontier, {
      limit: observationRowsOf(deps.bounds),
    });
    const next: string[] = [];
    for (const relation of touching) {
      for (const id of [relation.from_id, relation.to_id]) {
        if (seen.size >= options.limit) return [...seen];
        if (!seen.has(id)) {
          seen.add(id);
          next.push(id);
        }
      }
    }
    frontier = next;
  }
  return [...seen];
}

async function graphOfAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  seq: number,
  ids: string[],
): Promise<GraphData> {
  const [{ rows }, relations] = await Promise.all([
    asOfRepo.entitiesAt(deps.db, auth.space.id, seq, { ids }, { limit: ids.length || 1 }),
    asOfRepo.relationsAt(deps.db, auth.space.id, seq, ids, {
      among: true,
      limit: observationRowsOf(deps.bounds),
    }),
  ]);
  const order = new Map(ids.map((id, index) => [id, index]));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return toGraphData(rows, relations);
}

/** The graph view as of `seq`: around a root, or from the best-connected entities then. */
export async function graphDataAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  options: { depth: number; limit: number; rootEntityId?: string | undefined },
  seq: number,
): Promise<GraphData> {
  if (options.rootEntityId) return graphAroundAt(deps, auth, options.rootEntityId, options, seq);
  const seedCount = Math.max(1, Math.ceil(options.limit / 10));
  const { rows: seeds } = await asOfRepo.entitiesAt(
    deps.db,
    auth.space.id,
    seq,
    { bestConnected: true },
    { limit: options.limit },
  );
  const ids = await walkAt(
    deps,
    auth,
    seq,
    seeds.slice(0, seedCount).map((row) => row.id),
    options,
  );
  const picked = new Set(ids);
  for (const row of seeds) {
    if (ids.length >= options.limit) break;
    if (!picked.has(row.id)) ids.push(row.id);
  }
  return graphOfAt(deps, auth, seq, ids);
}

export async function graphAroundAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  id: string,
  options: { depth: number; limit: number },
  seq: number,
): Promise<GraphData> {
  await entityThen(deps, auth, id, seq);
  return graphOfAt(deps, auth, seq, await walkAt(deps, auth, seq, [id], options));
}

/**
 * `recall` as of `seq`: the observations then that share a word with the
 * question, ranked by how densely they hold its words. A simpler order than
 * the present's (decision 020: no name, date or neighbour boosts, no
 * semantic arm); the same answer shape.
 */
export async function recallAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  input: RecallQuestion,
  seq: number,
): Promise<RecallAnswer> {
  const rows = await asOfRepo.observationsMatchingAt(deps.db, auth.space.id, seq, input.query, {
    limit: input.limit,
    types: input.entityTypes,
    names: input.entityNames,
  });
  return {
    query: input.query,
    results: rows.map((row) => ({
      observation: row.content,
      observationId: row.id,
      entityName: row.entity_name,
      entityType: row.entity_type,
      entityId: row.entity_id,
      createdAt: iso(row.created_at),
      validFrom: row.valid_from && iso(row.valid_from),
      validTo: row.valid_to && iso(row.valid_to),
      score: row.score,
    })),
  };
}

// ── MCP, in the reference server's shapes ────────────────────────────────────

async function memoryGraphAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  seq: number,
  rows: EntityAt[],
  options: { fromOnly?: boolean; more: (kept: number) => string },
): Promise<MemoryGraph> {
  const bounded = await withObservationsAt(deps, auth, seq, rows);
  const relations = await asOfRepo.relationsAt(
    deps.db,
    auth.space.id,
    seq,
    bounded.rows.map((row) => row.id),
    { fromOnly: options.fromOnly, limit: deps.bounds.maxRows + 1 },
  );
  const notes: string[] = [];
  if (bounded.cut) {
    notes.push(`showing ${bounded.rows.length} entities; ${options.more(bounded.rows.length)}`);
  }
  if (relations.length > deps.bounds.maxRows) {
    notes.push(`showing the first ${deps.bounds.maxRows} relations of these entities`);
  }
  const graph: MemoryGraph = {
    entities: bounded.rows.map((row) => ({
      name: row.name,
      entityType: row.type,
      observations: (bounded.observations.get(row.id) ?? []).map((o) => o.content),
    })),
    relations: relations.slice(0, deps.bounds.maxRows).map((row) => ({
      from: row.from_name,
      to: row.to_name,
      relationType: row.type,
    })),
  };
  return notes.length > 0 ? { ...graph, truncated: `truncated: ${notes.join('; ')}` } : graph;
}

/** One page of the MCP reads as of `seq` (`offset`, `limit` within the read limit). */
async function pageAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  seq: number,
  pick: asOfRepo.EntityPick,
  page: Page,
) {
  const offset = page.offset ?? 0;
  const limit = Math.min(page.limit ?? deps.bounds.maxRows, deps.bounds.maxRows);
  const { rows } = await asOfRepo.entitiesAt(deps.db, auth.space.id, seq, pick, { limit, offset });
  return { rows, offset };
}

export async function readGraphAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  page: Page,
  seq: number,
): Promise<MemoryGraph> {
  const { rows, offset } = await pageAt(deps, auth, seq, { all: true }, page);
  // Creation order, as read_graph pages the present.
  rows.reverse();
  return memoryGraphAt(deps, auth, seq, rows, {
    fromOnly: true,
    more: (kept) => `call read_graph with offset=${offset + kept} for the next page`,
  });
}

export async function searchNodesAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  query: string,
  page: Page,
  seq: number,
): Promise<MemoryGraph> {
  const { rows, offset } = await pageAt(deps, auth, seq, { query }, page);
  return memoryGraphAt(deps, auth, seq, rows, {
    more: (kept) => `call search_nodes with offset=${offset + kept} for the next ones`,
  });
}

export async function openNodesAt(
  deps: HistoryDeps,
  auth: SpaceAuth,
  names: string[],
  seq: number,
): Promise<MemoryGraph> {
  const { rows } = await asOfRepo.entitiesAt(
    deps.db,
    auth.space.id,
    seq,
    { names },
    {
      limit: deps.bounds.maxRows + 1,
    },
  );
  const order = new Map(names.map((name, index) => [name, index]));
  rows.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  return memoryGraphAt(deps, auth, seq, rows, {
    more: (kept) => `open the names after the first ${kept} found in another call`,
  });
}
