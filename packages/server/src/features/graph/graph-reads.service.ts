import type { GraphData, McpRelation } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { AuthContext, SpaceAuth, SpaceRef } from '../../lib/auth-context.js';
import { notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as answersRepo from './answers.repository.js';
import * as entityRepo from './entities.repository.js';
import * as overviewRepo from './overview.repository.js';
import * as relationRepo from './relations.repository.js';
import * as walkRepo from './walks.repository.js';
import * as searchRepo from './search.repository.js';
import {
  answerBudget,
  answerGraph,
  toMemoryGraph,
  withNote,
  type MemoryGraph,
} from './memory-graph.js';
import { missingEntities, requireByName } from './names.js';
import type { GraphDeps } from './graph-deps.js';
import { observationRowsOf } from './read-bounds.js';
import { toGraphData } from './wire-shapes.js';

export interface Page {
  limit?: number | undefined;
  offset?: number | undefined;
}

// ── by name, in the reference MCP server's shape ───────────────────────────

/**
 * The whole graph, or one page of entities in creation order with the
 * relations that start at them — paging through visits every relation once.
 * Without a limit as much as the read limits allow, saying where to go on.
 */
export async function readGraph(deps: GraphDeps, auth: SpaceAuth, page: Page = {}) {
  const offset = page.offset ?? 0;
  const limit = Math.min(page.limit ?? deps.bounds.maxRows, deps.bounds.maxRows);
  // One row past the page tells whether more follow.
  const rows = await entityRepo.pageEntities(deps.db, auth.space.id, { limit: limit + 1, offset });
  const onPage = rows.slice(0, limit);
  const relations = walkRepo
    .relationsTouching(
      deps.db,
      auth.space.id,
      onPage.map((row) => row.id),
      { fromOnly: true, limit: deps.bounds.maxRows + 1 },
    )
    .then((touching) => relationRepo.named(touching, relationRepo.namesOf(onPage)));
  const more = (kept: number) => `call read_graph with offset=${offset + kept} for the next page`;
  const graph = await toMemoryGraph(deps, auth.space.id, onPage, relations, more);
  // More entities follow a full page: a cut only when the caller asked for no limit.
  if (rows.length > limit && page.limit === undefined && graph.entities.length === limit) {
    return withNote(graph, `showing ${limit} entities; ${more(limit)}`);
  }
  return graph;
}

/**
 * Entities whose name, type or observations contain the query (any case),
 * best matches first, with every relation touching them.
 */
export async function searchNodes(
  deps: GraphDeps,
  auth: SpaceAuth,
  query: string,
  page: Page = {},
): Promise<MemoryGraph> {
  const offset = page.offset ?? 0;
  const limit = Math.min(page.limit ?? deps.bounds.maxRows, deps.bounds.maxRows);
  const answer = await searchRepo.searchAnswer(
    deps.db,
    auth.space.id,
    { query, limit, offset },
    answerBudget(deps),
  );
  const graph = answerGraph(
    deps,
    answer,
    (kept) => `call search_nodes with offset=${offset + kept} for the next ones`,
  );
  const shown = graph.entities.length;
  if (
    page.limit === undefined &&
    shown === answer.entities.length &&
    offset + shown < answer.total
  ) {
    return withNote(
      graph,
      `showing ${shown} of ${answer.total} matches; call search_nodes with offset=${offset + shown} for the next ones`,
    );
  }
  return graph;
}

/** The named entities (unknown names are skipped) with every relation touching them. */
export async function openNodes(
  deps: GraphDeps,
  auth: SpaceAuth,
  names: string[],
): Promise<MemoryGraph> {
  // One entity past the most an answer holds tells that names were left out.
  const answer = await answersRepo.namedAnswer(
    deps.db,
    auth.space.id,
    names,
    deps.bounds.maxRows + 1,
    answerBudget(deps),
  );
  return answerGraph(
    deps,
    answer,
    (kept) => `open the names after the first ${kept} found in another call`,
  );
}

/** The entity and everything within `depth` relations of it, either direction. */
export async function neighbours(
  deps: GraphDeps,
  auth: SpaceAuth,
  query: { name: string; depth: number; limit: number },
): Promise<MemoryGraph> {
  const answer = await answersRepo.neighbourhoodAnswer(
    deps.db,
    auth.space.id,
    query.name,
    { depth: query.depth, limit: query.limit },
    answerBudget(deps),
  );
  if (answer.entities.length === 0) throw missingEntities([query.name]);
  // Only the relations among the entities found.
  const found = new Set(answer.entities.map((row) => row.id));
  const relations = answer.relations.filter(
    (relation) => found.has(relation.from_id) && found.has(relation.to_id),
  );
  return answerGraph(deps, { ...answer, relations }, () => 'ask for a smaller depth or limit');
}

/**
 * A shortest chain of relations between two entities, following relations in
 * either direction, up to `maxDepth` hops. When there is none, says whether
 * the search covered every entity that near or stopped at the read limits.
 */
export async function shortestPath(
  deps: GraphDeps,
  auth: SpaceAuth,
  query: { from: string; to: string; maxDepth: number },
): Promise<
  { found: true; path: string[]; relations: McpRelation[] } | { found: false; searchedAll: boolean }
> {
  const byName = await requireByName(deps.db, auth.space.id, [query.from, query.to]);
  const start = byName.get(query.from)!.id;
  const goal = byName.get(query.to)!.id;
  if (start === goal) return { found: true, path: [query.from], relations: [] };

  // Breadth-first, one indexed query per level, remembering how each entity was
  // reached. Each level reads at most the row budget; past it the search stops.
  const budget = observationRowsOf(deps.bounds);
  const cameFrom = new Map<string, relationRepo.NamedRelationRow | null>([[start, null]]);
  // Every entity reached is named by the relation that reached it.
  const names = new Map([
    [start, query.from],
    [goal, query.to],
  ]);
  let frontier = [start];
  let exhausted = false;
  for (let depth = 0; depth < query.maxDepth && frontier.length > 0; depth++) {
    const touching = await walkRepo.relationsTouching(deps.db, auth.space.id, frontier, {
      limit: budget + 1,
    });
    if (touching.length > budget) exhausted = true;
    for (const edge of touching) {
      if (edge.from_name !== null) names.set(edge.from_id, edge.from_name);
      if (edge.to_name !== null) names.set(edge.to_id, edge.to_name);
    }
    const edges = relationRepo.named(touching, names);
    const inFrontier = new Set(frontier);
    const next: string[] = [];
    for (const edge of edges) {
      for (const [here, there] of [
        [edge.from_id, edge.to_id],
        [edge.to_id, edge.from_id],
      ] as const) {
        if (!inFrontier.has(here) || cameFrom.has(there)) continue;
        cameFrom.set(there, edge);
        next.push(there);
      }
    }
    if (cameFrom.has(goal)) break;
    if (exhausted || cameFrom.size > budget) {
      exhausted = true;
      break;
    }
    frontier = next;
  }
  if (!cameFrom.has(goal)) return { found: false, searchedAll: !exhausted };

  const edges: relationRepo.NamedRelationRow[] = [];
  for (let at = goal; at !== start;) {
    const edge = cameFrom.get(at)!;
    edges.unshift(edge);
    at = edge.from_id === at ? edge.to_id : edge.from_id;
  }
  const path = [query.from];
  for (const edge of edges) {
    path.push(path[path.length - 1] === edge.from_name ? edge.to_name : edge.from_name);
  }
  return {
    found: true,
    path,
    relations: edges.map((edge) => ({
      from: edge.from_name,
      to: edge.to_name,
      relationType: edge.type,
    })),
  };
}

// ── by id, for drawing (REST) ──────────────────────────────────────────────

async function graphOf(db: Db, spaceId: string, ids: string[]): Promise<GraphData> {
  const [nodes, relations] = await Promise.all([
    walkRepo.nodesByIds(db, spaceId, ids),
    walkRepo.relationsAmong(db, spaceId, ids),
  ]);
  const order = new Map(ids.map((id, index) => [id, index]));
  nodes.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return toGraphData(nodes, relations);
}

/** How far a drawing walks from its root, and how many entities it may hold. */
export interface GraphWalk {
  depth: number;
  limit: number;
  rootEntityId?: string | undefined;
}

/** The graph for drawing: around `rootEntityId` when given, else the best-connected entities. */
export async function graphData(
  deps: GraphDeps,
  auth: SpaceAuth,
  options: GraphWalk,
): Promise<GraphData> {
  const { rootEntityId, ...walk } = options;
  return rootEntityId
    ? graphAround(deps, auth, rootEntityId, walk)
    : graphOverview(deps, auth, walk);
}

/** The neighbourhood of one entity to `depth`, at most `limit` entities. */
export async function graphAround(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
  options: { depth: number; limit: number },
): Promise<GraphData> {
  if (!isUuid(id)) throw notFound('Entity');
  const { nodes, relations } = await walkRepo.neighbourhood(deps.db, auth.space.id, id, options);
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
  auth: SpaceAuth,
  options: { depth: number; limit: number },
): Promise<GraphData> {
  const { db } = deps;
  const seedCount = Math.max(1, Math.ceil(options.limit / 10));
  const seeds = await walkRepo.bestConnected(db, auth.space.id, [], seedCount);
  const ids = await walkRepo.walk(db, auth.space.id, seeds, options);
  if (ids.length < options.limit) {
    ids.push(...(await walkRepo.bestConnected(db, auth.space.id, ids, options.limit - ids.length)));
  }
  return graphOf(db, auth.space.id, ids);
}

export type GraphOverview = overviewRepo.OverviewRows;

/**
 * The dashboard's view of one space's graph, or of every space of the
 * account when none is named (totals, daily creations, newest entities, types).
 */
export async function overview(
  deps: GraphDeps,
  auth: AuthContext & { space?: SpaceRef },
  options: { since: string; recent: number; types: number },
): Promise<GraphOverview> {
  return overviewRepo.overview(deps.db, auth.accountId, auth.space?.id ?? null, options);
}
