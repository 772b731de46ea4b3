import type { GraphNodeView, GraphView } from '../graph-view';
import type { LayoutFrame, LayoutPort } from '../layout/protocol';
import type { Box, PlacedLabel } from './label-placement';
import { readPalette, type Palette } from './scene-frame';
import { SceneInput, type InputTarget } from './scene-input';
import { LabelWidths } from './scene-labels';
import {
  buildScene,
  EMPTY_SCENE,
  layoutLoad,
  litAround,
  NO_EMPHASIS,
  nodeAt,
  nodeView,
  placeNodes,
  type Emphasis,
  type SceneGraph,
} from './scene-model';
import { drawScene } from './scene-renderer';
import { SceneViewport } from './scene-viewport';

/*
 * The graph canvas without React: it wires the parts together. Data goes to
 * the layout worker, whose frames move the model's nodes (scene-model.ts);
 * the viewport (scene-viewport.ts) zooms and pans, input (scene-input.ts)
 * turns gestures into hover, focus, drags and clicks, and each change asks
 * for one frame, drawn on requestAnimationFrame by the renderer
 * (scene-renderer.ts) and only when something changed.
 */

export type LayoutState = 'empty' | 'running' | 'settled';

export interface SceneCallbacks {
  /** A click on a node, or Enter on the keyboard-focused node. */
  onNodeActivate?(node: GraphNodeView): void;
  /** A click on empty canvas. */
  onBackgroundClick?(): void;
  onLayoutState?(state: LayoutState): void;
  /** The keyboard-focused node changed (for a live region). */
  onFocusNode?(node: GraphNodeView | null): void;
}

export interface SceneOptions extends SceneCallbacks {
  canvas: HTMLCanvasElement;
  height: number;
  worker: LayoutPort;
  /** prefers-reduced-motion: the layout settles without animation. */
  reducedMotion: boolean;
  /** Controls laid over the canvas (the zoom buttons): labels are not drawn under them. */
  overlay?: HTMLElement | null;
}

/** Watches the scene work, for measurement (graph-probe.ts); never needed to draw. */
export interface SceneMonitor {
  /** setData handed the scene a graph of `nodes` nodes. */
  loaded(nodes: number): void;
  /** A layout frame of the current graph was applied; `settled` when it settled the layout. */
  laidOut(settled: boolean): void;
  /** A frame was drawn, in `ms`. */
  drawn(ms: number): void;
}

export class GraphScene {
  private readonly canvas: HTMLCanvasElement;
  private readonly context: CanvasRenderingContext2D | null;
  private readonly worker: LayoutPort;
  private readonly callbacks: SceneCallbacks;
  private readonly reducedMotion: boolean;
  private readonly overlay: HTMLElement | null;
  private readonly viewport: SceneViewport;
  private readonly input: SceneInput;
  private readonly labelWidths: LabelWidths | null;
  private readonly cleanups: (() => void)[] = [];
  private monitor: SceneMonitor | null = null;

  private scene: SceneGraph = EMPTY_SCENE;
  private emphasis: Emphasis = NO_EMPHASIS;
  /** Names the current load; layout frames of an older one are dropped. */
  private version = 0;
  private state: LayoutState = 'empty';
  private palette: Palette;
  /** Where the overlay sits on the canvas (CSS px), measured on resize. */
  private overlayBox: Box | null = null;
  private drawnLabels: PlacedLabel[] = [];
  private frameRequested = 0;

  constructor(options: SceneOptions) {
    this.canvas = options.canvas;
    this.context = this.canvas.getContext('2d');
    this.worker = options.worker;
    this.callbacks = options;
    this.reducedMotion = options.reducedMotion;
    this.overlay = options.overlay ?? null;
    this.palette = readPalette(this.canvas);
    this.worker.onmessage = (event) => this.receive(event.data);
    this.viewport = new SceneViewport(this.canvas, options.height, {
      accepts: (event) => this.input.zoomAccepts(event),
      changed: () => this.requestDraw(),
    });
    this.input = new SceneInput(this.canvas, this.inputTarget());
    this.labelWidths = this.context
      ? new LabelWidths(
          this.context,
          () => this.scene,
          () => this.requestDraw(),
        )
      : null;

    const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (scheme) {
      const repaint = () => {
        this.palette = readPalette(this.canvas);
        this.requestDraw();
      };
      scheme.addEventListener('change', repaint);
      this.cleanups.push(() => scheme.removeEventListener('change', repaint));
    }
    if (typeof ResizeObserver !== 'undefined') {
      const observer = new ResizeObserver(() => this.resize());
      observer.observe(this.canvas);
      this.cleanups.push(() => observer.disconnect());
    }
    this.resize();
  }

  destroy(): void {
    for (const cleanup of this.cleanups) cleanup();
    this.input.destroy();
    this.viewport.destroy();
    if (this.frameRequested) cancelAnimationFrame(this.frameRequested);
    this.labelWidths?.cancel();
    this.worker.onmessage = null;
    this.worker.terminate();
  }

  /**
   * Shows `graph`. Nodes already on screen keep their place; the worker warms
   * the layout around what is new instead of starting over.
   */
  setData(graph: GraphView, pinnedId: string | null = null): void {
    const before = this.scene;
    const { hover, focus } = this.emphasis;
    this.scene = buildScene(graph, before);
    // Hover and focus follow their node to its new index (or end with it).
    const indexOf = (old: number) => {
      const id = before.nodes[old]?.id;
      return id === undefined ? -1 : (this.scene.indexById.get(id) ?? -1);
    };
    this.emphasize({ hover: indexOf(hover), focus: indexOf(focus) });
    this.input.forgetPress();

    const { nodes, edges } = this.scene;
    if (!nodes.some((node) => node.placed)) this.viewport.autoFit = true;
    this.version++;
    this.monitor?.loaded(nodes.length);
    this.setLayoutState(nodes.length === 0 ? 'empty' : 'running');
    this.canvas.dataset.nodes = String(nodes.length);
    this.canvas.dataset.edges = String(edges.length);
    this.worker.postMessage(layoutLoad(this.scene, this.version, pinnedId, !this.reducedMotion));
    this.labelWidths?.measure();
    this.requestDraw();
  }

  /** Rings the nodes `ids` and labels them first (a search); null clears. */
  setMatches(ids: ReadonlySet<string> | null): void {
    this.emphasis = { ...this.emphasis, matches: ids && ids.size > 0 ? new Set(ids) : null };
    this.requestDraw();
  }

  setSelected(id: string | null): void {
    if (id === this.emphasis.selectedId) return;
    this.emphasis = { ...this.emphasis, selectedId: id };
    this.requestDraw();
  }

  setHeight(height: number): void {
    if (height === this.viewport.height) return;
    this.viewport.height = height;
    this.resize();
  }

  /** Back to the whole graph in view (and following the layout again). */
  resetZoom(): void {
    this.viewport.autoFit = true;
    this.viewport.fit(this.scene.nodes);
  }

  zoomBy(factor: number): void {
    this.viewport.zoomBy(factor);
  }

  /** Attaches a monitor (graph-probe.ts), from the next load on. */
  observe(monitor: SceneMonitor | null): void {
    this.monitor = monitor;
  }

  // Read-only views of what is drawn, for the probe.
  get graph(): SceneGraph {
    return this.scene;
  }
  get layoutState(): LayoutState {
    return this.state;
  }
  get transform() {
    return this.viewport.transform;
  }
  /** The labels of the last frame, in canvas CSS pixels. */
  get labels(): readonly PlacedLabel[] {
    return this.drawnLabels;
  }

  private receive(frame: LayoutFrame): void {
    const { nodes } = this.scene;
    if (frame.version !== this.version || frame.positions.length !== nodes.length * 2) return;
    placeNodes(this.scene, frame.positions, this.input.dragged);
    if (this.viewport.autoFit) this.viewport.fit(nodes);
    const settles = frame.settled && this.state === 'running';
    this.monitor?.laidOut(settles);
    if (settles) {
      performance.mark?.('engram:graph-settled', { detail: { nodes: nodes.length } });
      this.setLayoutState('settled');
    } else if (!frame.settled && this.state === 'settled') {
      this.setLayoutState('running');
    }
    this.requestDraw();
  }

  private setLayoutState(state: LayoutState): void {
    if (state === this.state && this.canvas.dataset.layout === state) return;
    this.state = state;
    this.canvas.dataset.layout = state;
    this.callbacks.onLayoutState?.(state);
  }

  private resize(): void {
    if (!this.viewport.resize()) return;
    this.overlayBox = this.measureOverlay();
    if (this.viewport.autoFit) this.viewport.fit(this.scene.nodes);
    this.requestDraw();
  }

  private measureOverlay(): Box | null {
    if (!this.overlay) return null;
    const canvas = this.canvas.getBoundingClientRect();
    const overlay = this.overlay.getBoundingClientRect();
    if (overlay.width === 0) return null;
    return {
      x: overlay.left - canvas.left,
      y: overlay.top - canvas.top,
      width: overlay.width,
      height: overlay.height,
    };
  }

  /** Hover and focus changes, with the lit neighbourhood they imply. */
  private emphasize(change: Partial<Pick<Emphasis, 'hover' | 'focus'>>): void {
    const next = { ...this.emphasis, ...change };
    this.emphasis = { ...next, lit: litAround(this.scene, next) };
  }

  private inputTarget(): InputTarget {
    return {
      nodeAt: (clientX, clientY) => {
        const [x, y] = this.viewport.toWorld(clientX, clientY);
        return nodeAt(this.scene, x, y, 3 / this.viewport.transform.k);
      },
      nodeCount: () => this.scene.nodes.length,
      focused: () => this.emphasis.focus,
      hover: (index) => {
        if (index === this.emphasis.hover) return;
        this.emphasize({ hover: index });
        this.requestDraw();
      },
      focus: (index) => this.focus(index),
      dragTo: (index, clientX, clientY) => {
        this.viewport.autoFit = false;
        const node = this.scene.nodes[index];
        if (!node) return;
        [node.x, node.y] = this.viewport.toWorld(clientX, clientY);
        node.placed = true;
        this.worker.postMessage({
          kind: 'drag',
          version: this.version,
          index,
          x: node.x,
          y: node.y,
        });
        this.requestDraw();
      },
      release: (index) =>
        this.worker.postMessage({ kind: 'release', version: this.version, index }),
      activate: (index) => {
        const node = this.scene.nodes[index];
        if (node) this.callbacks.onNodeActivate?.(nodeView(node));
      },
      backgroundClick: () => this.callbacks.onBackgroundClick?.(),
      zoomBy: (factor) => this.zoomBy(factor),
      resetZoom: () => this.resetZoom(),
    };
  }

  private focus(index: number): void {
    if (index === this.emphasis.focus) return;
    this.emphasize({ focus: index });
    const node = this.scene.nodes[index];
    if (node?.placed) this.viewport.bringIntoView(node.x, node.y);
    this.callbacks.onFocusNode?.(node ? nodeView(node) : null);
    this.requestDraw();
  }

  private requestDraw(): void {
    if (this.frameRequested || typeof requestAnimationFrame === 'undefined') return;
    this.frameRequested = requestAnimationFrame(() => {
      this.frameRequested = 0;
      this.draw();
    });
  }

  private draw(): void {
    if (!this.context) return;
    const started = performance.now();
    const { transform, width, height, dpr } = this.viewport;
    const labels = drawScene(this.context, {
      scene: this.scene,
      emphasis: this.emphasis,
      transform,
      width,
      height,
      dpr,
      palette: this.palette,
      overlay: this.overlayBox,
    });
    if (labels === null) return;
    this.drawnLabels = labels;
    if (this.canvas.dataset.labels !== String(labels.length)) {
      this.canvas.dataset.labels = String(labels.length);
    }
    this.monitor?.drawn(performance.now() - started);
  }
}
