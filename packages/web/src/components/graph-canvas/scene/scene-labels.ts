import { placeLabels, type Box, type LabelCandidate, type PlacedLabel } from './label-placement';
import { isStrong, type SceneGraph } from './scene-model';
import { haloText, type SceneFrame } from './scene-frame';

/*
 * Node labels: drawn by room, not by count. The visible nodes' labels are
 * offered most important first (label-placement.ts keeps each only where it
 * overlaps no other), and their widths are measured in idle time after a
 * load, so a large graph never spends one long task on text.
 */

const LABEL_FONT = "500 11px 'Inter Variable', ui-sans-serif, system-ui, sans-serif";
const LABEL_FONT_STRONG = "600 11px 'Inter Variable', ui-sans-serif, system-ui, sans-serif";
/** Nodes at least this big on screen (radius, CSS px) keep labels off them. */
const LABEL_OBSTACLE_RADIUS = 5;
/** Time one idle slice may spend measuring label widths, ms. */
const MEASURE_SLICE_MS = 6;

/** Places and draws the labels of the `visible` nodes, in screen space; the labels drawn. */
export function drawLabels(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
  visible: readonly number[],
  selected: number | undefined,
): PlacedLabel[] {
  const { scene, emphasis, palette } = frame;
  haloText(context, palette, palette.label, 'top');
  const labels = placeLabels(
    labelCandidates(context, frame, visible, selected),
    frame.width,
    frame.height,
    labelObstacles(frame, visible),
  );
  for (const label of labels) {
    const node = scene.nodes[label.index]!;
    context.globalAlpha = emphasis.lit === null || emphasis.lit.has(node.id) ? 1 : 0.25;
    context.font = isStrong(label.index, emphasis, selected) ? LABEL_FONT_STRONG : LABEL_FONT;
    const x = label.x + label.width / 2;
    const y = label.y + 1;
    context.strokeText(node.label, x, y);
    context.fillText(node.label, x, y);
  }
  context.globalAlpha = 1;
  return labels;
}

/**
 * The visible nodes' labels in the order they claim room: hovered, focused,
 * selected, search matches, the hovered node's neighbours, then the best
 * connected. Labels not measured yet wait for their idle slice (LabelWidths);
 * the strong ones are measured at once.
 */
function labelCandidates(
  context: CanvasRenderingContext2D,
  frame: SceneFrame,
  visible: readonly number[],
  selected: number | undefined,
): LabelCandidate[] {
  const { scene, emphasis } = frame;
  const { k, x: tx, y: ty } = frame.transform;
  const shown = new Uint8Array(scene.nodes.length);
  for (const index of visible) shown[index] = 1;
  const candidates: LabelCandidate[] = [];
  const offer = (index: number | undefined) => {
    if (index === undefined || index < 0 || shown[index] !== 1) return;
    shown[index] = 2;
    const node = scene.nodes[index]!;
    const strong = isStrong(index, emphasis, selected);
    let width = node.labelWidth;
    if (strong) {
      context.font = LABEL_FONT_STRONG;
      width = context.measureText(node.label).width;
    }
    if (width === 0) return;
    candidates.push({
      index,
      cx: tx + node.x * k,
      cy: ty + node.y * k,
      r: node.radius * k,
      // Room for the halo drawn around the text.
      width: width + 4,
      required: strong,
    });
  };
  offer(emphasis.hover);
  offer(emphasis.focus);
  offer(selected);
  const offerAll = (ids: ReadonlySet<string> | null) => {
    if (!ids) return;
    for (const index of scene.labelOrder) if (ids.has(scene.nodes[index]!.id)) offer(index);
  };
  offerAll(emphasis.matches);
  offerAll(emphasis.lit);
  for (const index of scene.labelOrder) offer(index);
  return candidates;
}

/** What labels keep clear of: the overlay and the nodes big enough to hide. */
function labelObstacles(frame: SceneFrame, visible: readonly number[]): Box[] {
  const { k, x: tx, y: ty } = frame.transform;
  const obstacles: Box[] = frame.overlay ? [frame.overlay] : [];
  for (const index of visible) {
    const node = frame.scene.nodes[index]!;
    const r = node.radius * k;
    if (r < LABEL_OBSTACLE_RADIUS) continue;
    // The square inside the disc's bounds: labels may graze a node's rim, not cross it.
    const half = r * 0.85;
    const cx = tx + node.x * k;
    const cy = ty + node.y * k;
    obstacles.push({ x: cx - half, y: cy - half, width: 2 * half, height: 2 * half });
  }
  return obstacles;
}

/**
 * Measures label widths a slice at a time in idle time, best connected
 * first; after each slice that measured something, `measured` redraws with
 * the labels known so far. Reads the scene at each slice, so a load while a
 * slice waits is measured too.
 */
export class LabelWidths {
  private handle: number | null = null;

  constructor(
    private readonly context: CanvasRenderingContext2D,
    private readonly current: () => SceneGraph,
    private readonly measured: () => void,
  ) {}

  measure(): void {
    if (this.handle !== null) return;
    const slice = () => {
      this.handle = null;
      const started = performance.now();
      const { nodes, labelOrder } = this.current();
      this.context.font = LABEL_FONT;
      let count = 0;
      let remaining = false;
      for (const index of labelOrder) {
        const node = nodes[index]!;
        if (node.labelWidth !== 0) continue;
        if (count > 0 && performance.now() - started > MEASURE_SLICE_MS) {
          remaining = true;
          break;
        }
        node.labelWidth = this.context.measureText(node.label).width || 1;
        count++;
      }
      if (count > 0) this.measured();
      if (remaining) this.measure();
    };
    this.handle =
      typeof requestIdleCallback === 'function'
        ? requestIdleCallback(slice, { timeout: 100 })
        : window.setTimeout(slice, 0);
  }

  cancel(): void {
    if (this.handle === null) return;
    if (typeof cancelIdleCallback === 'function') cancelIdleCallback(this.handle);
    else window.clearTimeout(this.handle);
    this.handle = null;
  }
}
