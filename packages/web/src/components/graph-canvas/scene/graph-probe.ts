import type { GraphScene, LayoutState, SceneMonitor } from './graph-scene';

/*
 * The canvas's probe, `canvas.graphProbe`: read-only facts of what the scene
 * drew, for the end-to-end specs (packages/web/e2e) and the UI benchmark
 * (bench/graph-ui), which cannot see inside a <canvas>. It is measurement
 * tooling, not the product: only a build made with VITE_GRAPH_PROBE=1 has
 * it (graph-canvas.tsx installs it under that flag, and the production build
 * leaves this module out). e2e/global-setup.ts and bench/graph-ui build the
 * app that way (e2e/probe-build.ts).
 */

export interface GraphProbe {
  readonly nodeCount: number;
  readonly edgeCount: number;
  readonly layoutState: LayoutState;
  readonly zoom: number;
  /** Where node `id` is drawn, in client (viewport) coordinates; null if unknown or not laid out. */
  screenPositionOf(id: string): { x: number; y: number } | null;
  /** How long each of the last frames took to draw, ms. */
  readonly drawTimes: readonly number[];
  /** The labels of the last frame: node id, text and box in client (viewport) coordinates. */
  readonly labels: readonly ProbedLabel[];
  /** Every laid-out node: id, centre in client coordinates and radius on screen. */
  screenNodes(): { id: string; x: number; y: number; r: number }[];
  /**
   * Each load: when the data reached the canvas, when its layout settled
   * (performance.now()), and how many layout frames were drawn on the way.
   */
  readonly layouts: readonly LayoutRecord[];
}

export interface LayoutRecord {
  nodes: number;
  receivedAt: number;
  settledAt: number | null;
  frames: number;
}

export interface ProbedLabel {
  id: string;
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export type ProbedCanvas = HTMLCanvasElement & { graphProbe?: GraphProbe };

const DRAW_TIMES_KEPT = 2000;
const LAYOUTS_KEPT = 50;

/** Records what the probe reports over time: draw times and each load's layout. */
class ProbeRecorder implements SceneMonitor {
  readonly drawTimes: number[] = [];
  readonly layouts: LayoutRecord[] = [];

  loaded(nodes: number): void {
    this.layouts.push({ nodes, receivedAt: performance.now(), settledAt: null, frames: 0 });
    if (this.layouts.length > LAYOUTS_KEPT) this.layouts.shift();
  }

  laidOut(settled: boolean): void {
    const layout = this.layouts.at(-1);
    if (!layout) return;
    layout.frames++;
    if (settled && layout.settledAt === null) layout.settledAt = performance.now();
  }

  drawn(ms: number): void {
    this.drawTimes.push(ms);
    if (this.drawTimes.length > DRAW_TIMES_KEPT) this.drawTimes.shift();
  }
}

/** Puts `canvas.graphProbe` on the canvas of `scene`; the returned function takes it off. */
export function installGraphProbe(canvas: HTMLCanvasElement, scene: GraphScene): () => void {
  const recorder = new ProbeRecorder();
  scene.observe(recorder);
  const origin = () => canvas.getBoundingClientRect();
  /** World point (x, y) in client coordinates, the canvas being at `rect`. */
  const onScreen = (rect: DOMRect, x: number, y: number) => {
    const [sx, sy] = scene.transform.apply([x, y]);
    return { x: rect.left + sx, y: rect.top + sy };
  };
  const probe: GraphProbe = {
    get nodeCount() {
      return scene.graph.nodes.length;
    },
    get edgeCount() {
      return scene.graph.edges.length;
    },
    get layoutState() {
      return scene.layoutState;
    },
    get zoom() {
      return scene.transform.k;
    },
    screenPositionOf(id) {
      const index = scene.graph.indexById.get(id);
      const node = index === undefined ? undefined : scene.graph.nodes[index];
      return node?.placed ? onScreen(origin(), node.x, node.y) : null;
    },
    drawTimes: recorder.drawTimes,
    layouts: recorder.layouts,
    get labels() {
      const rect = origin();
      const { nodes } = scene.graph;
      return scene.labels.map((label) => ({
        id: nodes[label.index]?.id ?? '',
        text: nodes[label.index]?.label ?? '',
        x: rect.left + label.x,
        y: rect.top + label.y,
        width: label.width,
        height: label.height,
      }));
    },
    screenNodes() {
      const rect = origin();
      const { k } = scene.transform;
      return scene.graph.nodes
        .filter((node) => node.placed)
        .map((node) => ({ id: node.id, ...onScreen(rect, node.x, node.y), r: node.radius * k }));
    },
  };
  (canvas as ProbedCanvas).graphProbe = probe;
  return () => {
    scene.observe(null);
    delete (canvas as ProbedCanvas).graphProbe;
  };
}
