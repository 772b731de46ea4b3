import type { PlacedLabel } from './label-placement';
import type { SceneFrame } from './scene-frame';
import { drawEdgeLabels } from './scene-edge-labels';
import { drawLabels } from './scene-labels';
import { litCentre, selectedIndex, type SceneEdge, type SceneNode } from './scene-model';

/*
 * One frame of the scene on a 2D canvas, as a function of the model and the
 * view: edges, arrowheads, nodes, rings, then node labels and relation types. Whatever shares a style
 * is one Path2D stroked or filled once (no DOM node, no draw call per graph
 * node), and only what is in view is drawn. Edges and nodes are drawn in
 * world space, labels in screen space so they stay 11 px at every zoom.
 */

/** The world rectangle in view, with a margin for radii and labels. */
interface WorldView {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const inView = (node: SceneNode, view: WorldView) =>
  node.placed && node.x >= view.x0 && node.x <= view.x1 && node.y >= view.y0 && node.y <= view.y1;

/** From this many edges in view, edges are one device pixel wide (see drawEdges). */
const HAIRLINE_EDGES_FROM = 600;
/** Nodes get a thin outline (separating overlaps) up to this many nodes. */
const OUTLINED_NODES_MAX = 1500;
/** Arrowheads are drawn only up to this many edges in view, and from this zoom on. */
const ARROWS_IN_VIEW_MAX = 2500;
const ARROWS_ZOOM_MIN = 0.35;
const ARROW_SIZE = 5;

/** Clears the canvas and draws `frame`; the labels drawn, or null when there is nothing to draw. */
export function drawScene(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
): PlacedLabel[] | null {
  const { k, x: tx, y: ty } = frame.transform;
  const { dpr } = frame;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, context.canvas.width, context.canvas.height);
  if (frame.scene.nodes.length === 0) return null;

  const margin = 40 / k;
  const view: WorldView = {
    x0: -tx / k - margin,
    y0: -ty / k - margin,
    x1: (frame.width - tx) / k + margin,
    y1: (frame.height - ty) / k + margin,
  };
  context.setTransform(dpr * k, 0, 0, dpr * k, dpr * tx, dpr * ty);
  const edges = drawEdges(context, frame, view);
  const visible = drawNodes(context, frame, view);
  const selected = selectedIndex(frame.scene, frame.emphasis);
  drawRings(context, frame, selected);
  context.setTransform(dpr, 0, 0, dpr, 0, 0);
  const labels = drawLabels(context, frame, visible, selected);
  drawEdgeLabels(context, frame, edges, labels);
  return labels;
}

/** Edges: one path for the ordinary ones, one for the dimmed, one for the lit; arrowheads alike. The edges in view. */
function drawEdges(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
  view: WorldView,
): SceneEdge[] {
  const { scene, palette } = frame;
  const { k } = frame.transform;
  const { lit } = frame.emphasis;
  const centre = scene.nodes[litCentre(frame.emphasis)]?.id;
  const normal = new Path2D();
  const dimmed = new Path2D();
  const bright = new Path2D();
  const visible: SceneEdge[] = [];
  for (const edge of scene.edges) {
    const a = scene.nodes[edge.from]!;
    const b = scene.nodes[edge.to]!;
    if (!a.placed || !b.placed) continue;
    if (
      Math.max(a.x, b.x) < view.x0 ||
      Math.min(a.x, b.x) > view.x1 ||
      Math.max(a.y, b.y) < view.y0 ||
      Math.min(a.y, b.y) > view.y1
    )
      continue;
    visible.push(edge);
    const touchesCentre = lit !== null && (a.id === centre || b.id === centre);
    const path = lit === null ? normal : touchesCentre ? bright : dimmed;
    path.moveTo(a.x, a.y);
    path.lineTo(b.x, b.y);
  }
  const arrows = new Path2D();
  const dimArrows = new Path2D();
  if (visible.length <= ARROWS_IN_VIEW_MAX && k >= ARROWS_ZOOM_MIN) {
    for (const edge of visible) {
      const a = scene.nodes[edge.from]!;
      const b = scene.nodes[edge.to]!;
      const dimmedArrow = lit !== null && a.id !== centre && b.id !== centre;
      addArrowhead(dimmedArrow ? dimArrows : arrows, a, b);
    }
  }
  // Many edges are drawn one device pixel wide: the rasteriser's hairline path is
  // 20× faster than a wider line (350 ms → 13 ms for 10,000 edges in software).
  context.lineWidth = visible.length > HAIRLINE_EDGES_FROM ? 1 / (k * frame.dpr) : 1.1 / k;
  context.strokeStyle = palette.edge;
  context.fillStyle = palette.edge;
  context.globalAlpha = 0.1;
  context.stroke(dimmed);
  context.fill(dimArrows);
  context.globalAlpha = lit === null ? 0.45 : 0.85;
  context.stroke(normal);
  context.fill(arrows);
  if (lit !== null) {
    context.lineWidth = 1.6 / k;
    context.stroke(bright);
  }
  return visible;
}

/** An arrowhead at `b`'s rim on the edge from `a`, unless the two nodes (nearly) touch. */
function addArrowhead(path: Path2D, a: SceneNode, b: SceneNode): void {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy);
  if (length < a.radius + b.radius + 2) return;
  const ux = dx / length;
  const uy = dy / length;
  const tipX = b.x - ux * (b.radius + 1.5);
  const tipY = b.y - uy * (b.radius + 1.5);
  const size = ARROW_SIZE;
  path.moveTo(tipX, tipY);
  path.lineTo(tipX - ux * size * 1.6 - uy * size, tipY - uy * size * 1.6 + ux * size);
  path.lineTo(tipX - ux * size * 1.6 + uy * size, tipY - uy * size * 1.6 - ux * size);
  path.closePath();
}

/** Nodes, one path per colour (and per lit or dimmed under a hover); the indices drawn. */
function drawNodes(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
  view: WorldView,
): number[] {
  const { scene } = frame;
  const { lit } = frame.emphasis;
  const visible: number[] = [];
  const outlined = scene.nodes.length <= OUTLINED_NODES_MAX;
  context.lineWidth = 1.5 / frame.transform.k;
  context.strokeStyle = frame.palette.halo;
  for (const group of scene.groups) {
    const on = new Path2D();
    const off = new Path2D();
    for (const index of group.members) {
      const node = scene.nodes[index]!;
      if (!inView(node, view)) continue;
      visible.push(index);
      const path = lit === null || lit.has(node.id) ? on : off;
      path.moveTo(node.x + node.radius, node.y);
      path.arc(node.x, node.y, node.radius, 0, 2 * Math.PI);
    }
    context.fillStyle = group.color;
    context.globalAlpha = 0.15;
    context.fill(off);
    context.globalAlpha = 1;
    context.fill(on);
    if (outlined) context.stroke(on);
  }
  return visible;
}

/** Rings: the selected node, the keyboard-focused one, and search matches (before their labels show). */
function drawRings(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
  selected: number | undefined,
): void {
  const { scene, palette, emphasis } = frame;
  const { k } = frame.transform;
  const ring = (index: number | undefined, color: string, gap: number, width: number) => {
    const node = index === undefined ? undefined : scene.nodes[index];
    if (!node?.placed) return;
    context.beginPath();
    context.arc(node.x, node.y, node.radius + gap / k, 0, 2 * Math.PI);
    context.lineWidth = width / k;
    context.strokeStyle = color;
    context.stroke();
  };
  ring(selected, palette.ring, 3, 2.5);
  if (emphasis.focus >= 0) ring(emphasis.focus, palette.focus, 6, 1.5);
  if (emphasis.matches) {
    for (const id of emphasis.matches) ring(scene.indexById.get(id), palette.focus, 3, 1.5);
  }
}
