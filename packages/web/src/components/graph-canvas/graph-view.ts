import type { GraphData } from '@engram/shared';

/*
 * What the graph canvas draws, as plain data and rules (docs/product.md, The
 * signed-in app; Numbers): a node's size and label, which nodes a hover keeps
 * lit, and the server's graph data as nodes and edges. Both graph screens
 * (/graph and the entity page) hand the canvas a GraphView.
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

/**
 * The type of the nodes standing for observations (the entity page's fallback
 * graph, docs/product.md, States): their labels are cut at 30, and the layout
 * gives them more room.
 */
export const OBSERVATION_TYPE = 'observation';

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
