import type { Entity, GraphData } from '@engram/shared';

/*
 * The rules of the graph screens (docs/product.md, The signed-in app; States; Numbers) as plain functions: what a
 * node looks like, which nodes a hover keeps lit, the fallback graph of the
 * entity screen, and the /graph address query.
 */

/** Node radius bounds in CSS pixels at zoom 1 (docs/product.md, Numbers). */
export const NODE_RADIUS_MIN = 8;
export const NODE_RADIUS_MAX = 20;

/** Label cuts (docs/product.md, Numbers): entity names at 15 characters, observations at 30. */
export const LABEL_MAX = 15;
export const OBSERVATION_LABEL_MAX = 30;

/** Zoom bounds of both canvases (docs/product.md, Numbers). */
export const ZOOM_MIN = 0.1;
export const ZOOM_MAX = 4;

/** The type of the fallback graph's observation nodes (docs/product.md, States). */
export const OBSERVATION_TYPE = 'observation';
/** The relation linking the entity to its observations in the fallback graph (docs/product.md, States). */
export const FALLBACK_RELATION = 'contains';
/** How many observations the fallback graph shows (docs/product.md, Numbers). */
export const FALLBACK_OBSERVATIONS = 10;

/** The entity screen's mini graph (docs/product.md, Calls; Numbers). */
export const ENTITY_GRAPH_DEPTH = 1;
export const ENTITY_GRAPH_LIMIT = 50;

/** The /graph selectors (docs/product.md, The signed-in app; Numbers). */
export const LIMIT_OPTIONS = [100, 250, 500] as const;
export const DEPTH_OPTIONS = [1, 2, 3, 4, 5] as const;
export const DEFAULT_LIMIT = 250;
export const DEFAULT_DEPTH = 2;

export type GraphLimit = (typeof LIMIT_OPTIONS)[number];
export type GraphDepth = (typeof DEPTH_OPTIONS)[number];

export interface GraphParams {
  limit: GraphLimit;
  depth: GraphDepth;
}

/** A node as the canvas draws it. */
export interface GraphNodeView {
  id: string;
  name: string;
  type: string;
  observationsCount: number;
}

/** A directed edge as the canvas draws it (ends are node ids). */
export interface GraphEdgeView {
  id: string;
  source: string;
  target: string;
  relationType: string;
}

export interface GraphView {
  nodes: GraphNodeView[];
  edges: GraphEdgeView[];
}

/**
 * Radius from the observation count: 8 px with none, growing with the square
 * root (so the first observations show and a hundred do not dwarf the rest),
 * 20 px from 36 observations on.
 */
export function nodeRadius(observationsCount: number): number {
  const count = Number.isFinite(observationsCount) ? Math.max(0, observationsCount) : 0;
  return Math.min(NODE_RADIUS_MAX, NODE_RADIUS_MIN + 2 * Math.sqrt(count));
}

/** `text` cut at `max` characters plus an ellipsis; shorter text is unchanged. */
export function cutLabel(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length > max ? `${characters.slice(0, max).join('')}…` : text;
}

/** A node's label: 15 characters for entities, 30 for observation nodes (docs/product.md, Numbers). */
export function nodeLabel(node: Pick<GraphNodeView, 'name' | 'type'>): string {
  return cutLabel(node.name, node.type === OBSERVATION_TYPE ? OBSERVATION_LABEL_MAX : LABEL_MAX);
}

/**
 * The ids a hover on `id` keeps lit: the node itself and every node one
 * relation away, in either direction (only the id itself when nothing links to it).
 */
export function neighbourSet(id: string, edges: readonly GraphEdgeView[]): Set<string> {
  const lit = new Set<string>([id]);
  for (const edge of edges) {
    if (edge.source === id) lit.add(edge.target);
    else if (edge.target === id) lit.add(edge.source);
  }
  return lit;
}

/** The server's graph data as the canvas's nodes and edges (edges with a missing end dropped). */
export function toGraphView(data: GraphData): GraphView {
  const ids = new Set(data.entities.map((entity) => entity.id));
  return {
    nodes: data.entities.map(({ id, name, type, observationsCount }) => ({
      id,
      name,
      type,
      observationsCount,
    })),
    edges: data.relations
      .filter((relation) => ids.has(relation.fromEntityId) && ids.has(relation.toEntityId))
      .map((relation) => ({
        id: relation.id,
        source: relation.fromEntityId,
        target: relation.toEntityId,
        relationType: relation.relationType,
      })),
  };
}

/** Id of the node standing for observation `observationId` in the fallback graph. */
export const observationNodeId = (observationId: string) => `observation:${observationId}`;

/**
 * The entity screen's graph when the graph call fails (docs/product.md, States): the entity
 * and its first 10 observations as nodes of type observation (labels cut at
 * 30 by `nodeLabel`), each linked from the entity by 'contains'.
 */
export function fallbackGraph(
  entity: Pick<Entity, 'id' | 'name' | 'type' | 'observationsCount' | 'observations'>,
): GraphView {
  const observations = entity.observations.slice(0, FALLBACK_OBSERVATIONS);
  return {
    nodes: [
      {
        id: entity.id,
        name: entity.name,
        type: entity.type,
        observationsCount: entity.observationsCount,
      },
      ...observations.map((observation) => ({
        id: observationNodeId(observation.id),
        name: observation.content,
        type: OBSERVATION_TYPE,
        observationsCount: 0,
      })),
    ],
    edges: observations.map((observation) => ({
      id: `${FALLBACK_RELATION}:${observation.id}`,
      source: entity.id,
      target: observationNodeId(observation.id),
      relationType: FALLBACK_RELATION,
    })),
  };
}

function pick<T extends number>(raw: string | null, options: readonly T[], fallback: T): T {
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const value = Number(raw);
  return options.find((option) => option === value) ?? fallback;
}

/** limit and depth from the address query; anything not offered falls back to the default. */
export function parseGraphParams(search: URLSearchParams): GraphParams {
  return {
    limit: pick(search.get('limit'), LIMIT_OPTIONS, DEFAULT_LIMIT),
    depth: pick(search.get('depth'), DEPTH_OPTIONS, DEFAULT_DEPTH),
  };
}

/** Longest part of an unknown query value quoted back in a notice. */
const QUOTED_MAX = 12;

/**
 * One short sentence for each of limit and depth the address gives but the
 * selectors do not offer (parseGraphParams uses the default instead), e.g.
 * 'Limit 99999 is not one of the options (100, 250, 500); showing 250.'
 */
export function graphParamNotices(search: URLSearchParams): string[] {
  const notices: string[] = [];
  const check = (
    key: 'limit' | 'depth',
    name: string,
    options: readonly number[],
    used: number,
    verb: string,
  ) => {
    const raw = search.get(key);
    if (raw === null || raw.trim() === '') return;
    if (/^\d+$/.test(raw) && options.includes(Number(raw))) return;
    notices.push(
      `${name} ${cutLabel(raw, QUOTED_MAX)} is not one of the options (${options.join(', ')}); ${verb} ${used}.`,
    );
  };
  const params = parseGraphParams(search);
  check('limit', 'Limit', LIMIT_OPTIONS, params.limit, 'showing');
  check('depth', 'Depth', DEPTH_OPTIONS, params.depth, 'using');
  return notices;
}

/** The address query for `params`, keeping any other parameters of `current`. */
export function graphSearch(params: GraphParams, current?: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(current);
  next.set('limit', String(params.limit));
  next.set('depth', String(params.depth));
  return next;
}

export interface TypeCount {
  type: string;
  count: number;
}

/** Node types with their counts, most common first, then by name. */
export function typeCounts(nodes: readonly Pick<GraphNodeView, 'type'>[]): TypeCount[] {
  const counts = new Map<string, number>();
  for (const node of nodes) counts.set(node.type, (counts.get(node.type) ?? 0) + 1);
  return [...counts]
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
}
