import { entityTypeColor } from '@engram/shared';
import {
  neighbourSet,
  nodeLabel,
  nodeRadius,
  OBSERVATION_TYPE,
  type GraphEdgeView,
  type GraphNodeView,
  type GraphView,
} from '../graph-view';
import type { ToLayout } from '../layout/protocol';

/*
 * The scene model: the graph as the canvas holds it between frames, and what
 * the person is pointing at. Drawing facts (colour, radius, label) are worked
 * out once per load, not per frame; node positions are world coordinates,
 * updated in place by every layout frame and drag, since a 5,000-node layout
 * posts one every 16 ms. No DOM here: the renderer draws it, input hit-tests it.
 */

export interface SceneNode extends GraphNodeView {
  label: string;
  /** The label's width on screen (CSS px), measured in idle time after a load; 0 until then. */
  labelWidth: number;
  color: string;
  radius: number;
  x: number;
  y: number;
  /** False until the layout has given the node a position. */
  placed: boolean;
}

/** An edge with its ends as node indices, so a frame never looks ids up. */
export interface SceneEdge extends GraphEdgeView {
  from: number;
  to: number;
}

export interface SceneGraph {
  readonly nodes: readonly SceneNode[];
  /** The edges whose two ends are nodes of the graph. */
  readonly edges: readonly SceneEdge[];
  /** The edges as given, for the neighbours a hover lights. */
  readonly given: readonly GraphEdgeView[];
  readonly indexById: ReadonlyMap<string, number>;
  /** Node indices by colour: one path per colour is drawn, not one per node. */
  readonly groups: readonly { color: string; members: readonly number[] }[];
  /** Node indices, best connected first: the order labels claim room in after the emphasised ones. */
  readonly labelOrder: readonly number[];
}

export const EMPTY_SCENE: SceneGraph = {
  nodes: [],
  edges: [],
  given: [],
  indexById: new Map(),
  groups: [],
  labelOrder: [],
};

/**
 * The scene of `graph`. Nodes of `previous` keep their place and measured
 * label, so new data (a live update, another limit) grows around what is on
 * screen instead of starting over.
 */
export function buildScene(graph: GraphView, previous: SceneGraph): SceneGraph {
  const known = new Map(previous.nodes.map((node) => [node.id, node]));
  const nodes: SceneNode[] = graph.nodes.map((node) => {
    const before = known.get(node.id);
    const label = nodeLabel(node);
    return {
      ...node,
      label,
      labelWidth: before?.label === label ? before.labelWidth : 0,
      color: entityTypeColor(node.type),
      radius: nodeRadius(node.observationsCount),
      x: before?.x ?? 0,
      y: before?.y ?? 0,
      placed: before?.placed ?? false,
    };
  });
  const indexById = new Map(nodes.map((node, index) => [node.id, index]));
  const edges: SceneEdge[] = [];
  const degree = new Uint32Array(nodes.length);
  for (const edge of graph.edges) {
    const from = indexById.get(edge.source);
    const to = indexById.get(edge.target);
    if (from === undefined || to === undefined) continue;
    edges.push({ ...edge, from, to });
    degree[from]!++;
    degree[to]!++;
  }
  // Best connected first, then most observed (the biggest node), then as the server sent them.
  const labelOrder = nodes
    .map((_, index) => index)
    .sort(
      (a, b) =>
        degree[b]! - degree[a]! ||
        nodes[b]!.observationsCount - nodes[a]!.observationsCount ||
        a - b,
    );
  const byColor = new Map<string, number[]>();
  nodes.forEach((node, index) => {
    const members = byColor.get(node.color) ?? [];
    members.push(index);
    byColor.set(node.color, members);
  });
  const groups = [...byColor].map(([color, members]) => ({ color, members }));
  return { nodes, edges, given: graph.edges, indexById, groups, labelOrder };
}

/** The layout worker's load message for `scene`: ids, radii and the room each node keeps. */
export function layoutLoad(
  scene: SceneGraph,
  version: number,
  pinnedId: string | null,
  animate: boolean,
): ToLayout {
  return {
    kind: 'load',
    version,
    nodes: scene.nodes.map((node) => ({
      id: node.id,
      radius: node.radius,
      // Observation labels are twice as long: they get more room.
      spacing: node.radius + (node.type === OBSERVATION_TYPE ? 36 : 12),
    })),
    links: scene.edges.map((edge) => ({ source: edge.source, target: edge.target })),
    pinnedId,
    animate,
  };
}

/** Moves every node but `skip` (the one being dragged) to the layout's `positions` (x0, y0, x1, y1, …). */
export function placeNodes(scene: SceneGraph, positions: Float32Array, skip: number): void {
  const { nodes } = scene;
  for (let i = 0; i < nodes.length; i++) {
    if (i === skip) continue;
    const node = nodes[i]!;
    node.x = positions[2 * i]!;
    node.y = positions[2 * i + 1]!;
    node.placed = true;
  }
}

/** The topmost placed node within `slop` of world point (x, y), or -1. */
export function nodeAt(scene: SceneGraph, x: number, y: number, slop: number): number {
  for (let i = scene.nodes.length - 1; i >= 0; i--) {
    const node = scene.nodes[i]!;
    if (!node.placed) continue;
    const reach = node.radius + slop;
    const dx = node.x - x;
    const dy = node.y - y;
    if (dx * dx + dy * dy <= reach * reach) return i;
  }
  return -1;
}

/** A node as the canvas's callers know it, without the scene's drawing facts. */
export function nodeView(node: SceneNode): GraphNodeView {
  return {
    id: node.id,
    name: node.name,
    type: node.type,
    observationsCount: node.observationsCount,
  };
}

/**
 * What the person points at: drawn stronger and labelled first. Indices are
 * node indices (-1: none); the selection is an id, since it is the caller's
 * and may name a node not drawn.
 */
export interface Emphasis {
  hover: number;
  /** The keyboard-focused node. */
  focus: number;
  selectedId: string | null;
  /** Nodes matching a search; null without one. */
  matches: ReadonlySet<string> | null;
  /** The hovered (else focused) node and its neighbours, drawn at full strength; null when the rest is not dimmed. */
  lit: ReadonlySet<string> | null;
}

export const NO_EMPHASIS: Emphasis = {
  hover: -1,
  focus: -1,
  selectedId: null,
  matches: null,
  lit: null,
};

/** The node the lit neighbourhood is around: keyboard focus wins over hover. */
export const litCentre = (emphasis: Emphasis) =>
  emphasis.focus >= 0 ? emphasis.focus : emphasis.hover;

/** Hover, or else keyboard focus, lights a node and its neighbours; the rest dims. */
export function litAround(scene: SceneGraph, emphasis: Emphasis): Set<string> | null {
  const node = scene.nodes[litCentre(emphasis)];
  return node ? neighbourSet(node.id, scene.given) : null;
}

/** The selected node's index, if it is drawn. */
export function selectedIndex(scene: SceneGraph, emphasis: Emphasis): number | undefined {
  return emphasis.selectedId === null ? undefined : scene.indexById.get(emphasis.selectedId);
}

/** The hovered, keyboard-focused and selected nodes: labelled first, in the stronger font. */
export function isStrong(index: number, emphasis: Emphasis, selected: number | undefined) {
  return index === selected || index === emphasis.hover || index === emphasis.focus;
}
