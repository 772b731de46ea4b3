import { typeLabel } from '@engram/shared';
import type { Box, PlacedLabel } from './label-placement';
import { haloText, type SceneFrame } from './scene-frame';
import { litCentre, type SceneEdge } from './scene-model';

/*
 * Relation types on the edges: always on the hovered (or focused) node's
 * edges, and on the others where there is room — few enough edges in view,
 * zoomed in enough, the edge long enough on screen for its label, and no
 * node label or other edge label under it. Drawn in screen space, after the
 * node labels, which keep the room they took.
 */

const EDGE_LABEL_FONT = "400 10px 'Inter Variable', ui-sans-serif, system-ui, sans-serif";
const EDGE_LABEL_HEIGHT = 12;
/** Characters of a relation type shown before an ellipsis. */
const EDGE_LABEL_MAX = 24;
/** Edges in view past which only the hovered node's are labelled. */
const LABELLED_EDGES_MAX = 120;
/** Zoom below which only the hovered node's edges are labelled. */
const LABELLED_ZOOM_MIN = 0.7;
/** Free space around a label, CSS px. */
const PAD = 3;

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width + PAD &&
  b.x < a.x + a.width + PAD &&
  a.y < b.y + b.height + PAD &&
  b.y < a.y + a.height + PAD;

const cut = (text: string) =>
  text.length > EDGE_LABEL_MAX ? `${text.slice(0, EDGE_LABEL_MAX)}…` : text;

/** Draws the labels of the `visible` edges that have room (the lit ones always); how many were drawn. */
export function drawEdgeLabels(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
  visible: readonly SceneEdge[],
  nodeLabels: readonly PlacedLabel[],
): number {
  const { scene, transform, palette } = frame;
  const centre = scene.nodes[litCentre(frame.emphasis)]?.id;
  const lit = (edge: SceneEdge) =>
    centre !== undefined &&
    (scene.nodes[edge.from]!.id === centre || scene.nodes[edge.to]!.id === centre);
  const roomForAll = visible.length <= LABELLED_EDGES_MAX && transform.k >= LABELLED_ZOOM_MIN;
  const candidates = visible.filter((edge) => lit(edge) || (roomForAll && centre === undefined));
  if (candidates.length === 0) return 0;

  context.font = EDGE_LABEL_FONT;
  haloText(context, palette, palette.edge, 'middle');
  const taken: Box[] = [...nodeLabels];
  if (frame.overlay) taken.push(frame.overlay);
  let drawn = 0;
  // The hovered node's edges claim room first.
  for (const edge of [...candidates].sort((a, b) => Number(lit(b)) - Number(lit(a)))) {
    const a = scene.nodes[edge.from]!;
    const b = scene.nodes[edge.to]!;
    const [ax, ay] = transform.apply([a.x, a.y]);
    const [bx, by] = transform.apply([b.x, b.y]);
    const text = cut(typeLabel(edge.relationType));
    const width = context.measureText(text).width;
    const box = {
      x: (ax + bx) / 2 - width / 2,
      y: (ay + by) / 2 - EDGE_LABEL_HEIGHT / 2,
      width,
      height: EDGE_LABEL_HEIGHT,
    };
    const along = Math.hypot(bx - ax, by - ay) - (a.radius + b.radius) * transform.k;
    const fits = along >= width + 2 * PAD && !taken.some((other) => overlaps(box, other));
    if (!lit(edge) && !fits) continue;
    taken.push(box);
    context.strokeText(text, box.x + width / 2, box.y + EDGE_LABEL_HEIGHT / 2);
    context.fillText(text, box.x + width / 2, box.y + EDGE_LABEL_HEIGHT / 2);
    drawn++;
  }
  return drawn;
}
