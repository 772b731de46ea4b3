import { entityTypeColor } from '@engram/shared';
import { select } from 'd3-selection';
import {
  zoom,
  zoomIdentity,
  type D3ZoomEvent,
  type ZoomBehavior,
  type ZoomTransform,
} from 'd3-zoom';
import {
  neighbourSet,
  nodeLabel,
  nodeRadius,
  OBSERVATION_TYPE,
  ZOOM_MAX,
  ZOOM_MIN,
  type GraphEdgeView,
  type GraphNodeView,
  type GraphView,
} from '../graph-model';
import type { LayoutFrame, ToLayout } from '../layout/protocol';
import { placeLabels, type Box, type LabelCandidate, type PlacedLabel } from './label-placement';

/*
 * The graph canvas without React: nodes and edges drawn on one <canvas> (no
 * DOM node per graph node), laid out by the worker, zoomed and panned by
 * d3-zoom, nodes dragged, hovered, focused and activated here. Every frame is
 * drawn on requestAnimationFrame, only when something changed, and only what
 * is in view. Labels are drawn by room, not by count: most important first
 * (hovered, selected, matching the search, then best connected), each only
 * where it overlaps no other label (label-placement.ts).
 */

/** What the scene needs of the layout worker (a real Worker, or an in-process stand-in in tests). */
export interface LayoutPort {
  postMessage(message: ToLayout): void;
  onmessage: ((event: MessageEvent<LayoutFrame>) => void) | null;
  terminate(): void;
}

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

/** Read-only facts for end-to-end tests and the UI benchmark (`canvas.graphProbe`). */
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

interface SceneNode extends GraphNodeView {
  label: string;
  /** The label's width on screen (CSS px), measured in idle time after a load; 0 until then. */
  labelWidth: number;
  color: string;
  radius: number;
  x: number;
  y: number;
  placed: boolean;
}

interface SceneEdge extends GraphEdgeView {
  from: number;
  to: number;
}

interface Palette {
  edge: string;
  label: string;
  halo: string;
  ring: string;
  focus: string;
}

/** Nodes at least this big on screen (radius, CSS px) keep labels off them. */
const LABEL_OBSTACLE_RADIUS = 5;
/** Time one idle slice may spend measuring label widths, ms. */
const MEASURE_SLICE_MS = 6;
/** From this many edges in view, edges are one device pixel wide (see draw). */
const HAIRLINE_EDGES_FROM = 600;
/** Nodes get a thin outline (separating overlaps) up to this many nodes. */
const OUTLINED_NODES_MAX = 1500;
/** Arrowheads are drawn only up to this many edges in view. */
const ARROWS_IN_VIEW_MAX = 2500;
/** Most a fitted view zooms in: small graphs should not fill the canvas with giant nodes. */
const FIT_ZOOM_MAX = 1.5;
const FIT_PADDING = 28;
/** A press that moves less than this (CSS px) is a click, not a drag. */
const CLICK_SLOP = 4;
const DRAW_TIMES_KEPT = 2000;
const LABEL_FONT = "500 11px 'Inter Variable', ui-sans-serif, system-ui, sans-serif";
const LABEL_FONT_STRONG = "600 11px 'Inter Variable', ui-sans-serif, system-ui, sans-serif";

interface Press {
  pointerId: number;
  index: number;
  startX: number;
  startY: number;
  dragging: boolean;
}

export class GraphScene {
  private readonly canvas: ProbedCanvas;
  private readonly context: CanvasRenderingContext2D | null;
  private readonly worker: LayoutPort;
  private readonly callbacks: SceneCallbacks;
  private readonly reducedMotion: boolean;
  private readonly zoomBehavior: ZoomBehavior<HTMLCanvasElement, unknown>;
  private readonly cleanups: (() => void)[] = [];

  private nodes: SceneNode[] = [];
  private edges: SceneEdge[] = [];
  private rawEdges: GraphEdgeView[] = [];
  private indexById = new Map<string, number>();
  private groups: { color: string; members: number[] }[] = [];
  /** Node indices, best connected first: the order labels are offered in after the highlighted ones. */
  private labelOrder: number[] = [];
  private measureHandle: number | null = null;
  /** Nodes matching the search (their labels come first); null without a search. */
  private matches: Set<string> | null = null;
  private drawnLabels: PlacedLabel[] = [];
  private readonly overlay: HTMLElement | null;
  /** Where the overlay sits on the canvas (CSS px), measured on resize. */
  private overlayBox: Box | null = null;
  private version = 0;
  private layoutState: LayoutState = 'empty';

  private width = 0;
  private height: number;
  private dpr = 1;
  private transform: ZoomTransform = zoomIdentity;
  /** While true, the view follows the layout so the whole graph stays in sight. */
  private autoFit = true;
  private palette: Palette;

  private hoverIndex = -1;
  private focusIndex = -1;
  private selectedId: string | null = null;
  private lit: Set<string> | null = null;
  private press: Press | null = null;
  private backgroundPress: { x: number; y: number } | null = null;

  private frameRequested = 0;
  private readonly drawTimes: number[] = [];
  private readonly layouts: LayoutRecord[] = [];

  constructor(options: SceneOptions) {
    this.canvas = options.canvas;
    this.context = this.canvas.getContext('2d');
    this.worker = options.worker;
    this.reducedMotion = options.reducedMotion;
    this.height = options.height;
    this.callbacks = options;
    this.overlay = options.overlay ?? null;
    this.palette = this.readPalette();

    this.worker.onmessage = (event) => this.receive(event.data);

    this.zoomBehavior = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([ZOOM_MIN, ZOOM_MAX])
      .filter((event: Event) => this.zoomAccepts(event))
      .on('start', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        // A person zooming or panning takes over the view from the automatic fit.
        if (event.sourceEvent) this.autoFit = false;
      })
      .on('zoom', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        this.transform = event.transform;
        this.requestDraw();
      });
    select(this.canvas).call(this.zoomBehavior);

    this.listen(this.canvas, 'pointerdown', (event) => this.pointerDown(event as PointerEvent));
    this.listen(this.canvas, 'pointermove', (event) => this.pointerMove(event as PointerEvent));
    this.listen(this.canvas, 'pointerup', (event) => this.pointerUp(event as PointerEvent));
    this.listen(this.canvas, 'pointercancel', (event) => this.pointerUp(event as PointerEvent));
    this.listen(this.canvas, 'pointerleave', () => this.setHover(-1));
    this.listen(this.canvas, 'keydown', (event) => this.keyDown(event as KeyboardEvent));
    this.listen(this.canvas, 'blur', () => this.setFocus(-1));

    const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (scheme) {
      const repaint = () => {
        this.palette = this.readPalette();
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
    this.exposeProbe();
  }

  destroy(): void {
    for (const cleanup of this.cleanups) cleanup();
    select(this.canvas).on('.zoom', null);
    if (this.frameRequested) cancelAnimationFrame(this.frameRequested);
    this.cancelMeasuring();
    this.worker.onmessage = null;
    this.worker.terminate();
    delete this.canvas.graphProbe;
  }

  // ── data ──────────────────────────────────────────────────────────────────

  /**
   * Shows `graph`. Nodes already on screen keep their place; the worker warms
   * the layout around what is new instead of starting over.
   */
  setData(graph: GraphView, pinnedId: string | null = null): void {
    const previous = new Map(this.nodes.map((node) => [node.id, node]));
    const hoveredId = this.nodes[this.hoverIndex]?.id;
    const focusedId = this.nodes[this.focusIndex]?.id;
    this.nodes = graph.nodes.map((node) => {
      const known = previous.get(node.id);
      const label = nodeLabel(node);
      return {
        ...node,
        label,
        labelWidth: known?.label === label ? known.labelWidth : 0,
        color: entityTypeColor(node.type),
        radius: nodeRadius(node.observationsCount),
        x: known?.x ?? 0,
        y: known?.y ?? 0,
        placed: known?.placed ?? false,
      };
    });
    this.indexById = new Map(this.nodes.map((node, index) => [node.id, index]));
    this.rawEdges = graph.edges;
    this.edges = [];
    const degree = new Uint32Array(this.nodes.length);
    for (const edge of graph.edges) {
      const from = this.indexById.get(edge.source);
      const to = this.indexById.get(edge.target);
      if (from === undefined || to === undefined) continue;
      this.edges.push({ ...edge, from, to });
      degree[from]!++;
      degree[to]!++;
    }
    // Best connected first, then most observed (the biggest node), then as the server sent them.
    this.labelOrder = this.nodes
      .map((_, index) => index)
      .sort(
        (a, b) =>
          degree[b]! - degree[a]! ||
          this.nodes[b]!.observationsCount - this.nodes[a]!.observationsCount ||
          a - b,
      );
    const byColor = new Map<string, number[]>();
    this.nodes.forEach((node, index) => {
      const members = byColor.get(node.color) ?? [];
      members.push(index);
      byColor.set(node.color, members);
    });
    this.groups = [...byColor].map(([color, members]) => ({ color, members }));

    this.hoverIndex = hoveredId === undefined ? -1 : (this.indexById.get(hoveredId) ?? -1);
    this.focusIndex = focusedId === undefined ? -1 : (this.indexById.get(focusedId) ?? -1);
    this.press = null;
    this.updateLit();

    const fresh = !this.nodes.some((node) => node.placed);
    if (fresh) this.autoFit = true;
    this.version++;
    this.layouts.push({
      nodes: this.nodes.length,
      receivedAt: performance.now(),
      settledAt: null,
      frames: 0,
    });
    if (this.layouts.length > 50) this.layouts.shift();
    this.setLayoutState(this.nodes.length === 0 ? 'empty' : 'running');
    this.canvas.dataset.nodes = String(this.nodes.length);
    this.canvas.dataset.edges = String(this.edges.length);
    this.worker.postMessage({
      kind: 'load',
      version: this.version,
      nodes: this.nodes.map((node) => ({
        id: node.id,
        radius: node.radius,
        // Observation labels are twice as long: they get more room.
        spacing: node.radius + (node.type === OBSERVATION_TYPE ? 36 : 12),
      })),
      links: this.edges.map((edge) => ({ source: edge.source, target: edge.target })),
      pinnedId,
      animate: !this.reducedMotion,
    });
    this.measureLabels();
    this.requestDraw();
  }

  /** Rings the nodes `ids` and labels them first (a search); null clears. */
  setMatches(ids: ReadonlySet<string> | null): void {
    this.matches = ids && ids.size > 0 ? new Set(ids) : null;
    this.requestDraw();
  }

  setSelected(id: string | null): void {
    if (id === this.selectedId) return;
    this.selectedId = id;
    this.requestDraw();
  }

  setHeight(height: number): void {
    if (height === this.height) return;
    this.height = height;
    this.resize();
  }

  /** Back to the whole graph in view (and following the layout again). */
  resetZoom(): void {
    this.autoFit = true;
    this.fit();
  }

  zoomBy(factor: number): void {
    this.autoFit = false;
    this.zoomBehavior.scaleBy(select(this.canvas), factor);
  }

  private receive(frame: LayoutFrame): void {
    if (frame.version !== this.version || frame.positions.length !== this.nodes.length * 2) return;
    const dragged = this.press?.dragging ? this.press.index : -1;
    const { positions } = frame;
    for (let i = 0; i < this.nodes.length; i++) {
      if (i === dragged) continue;
      const node = this.nodes[i]!;
      node.x = positions[2 * i]!;
      node.y = positions[2 * i + 1]!;
      node.placed = true;
    }
    if (this.autoFit) this.fit();
    const layout = this.layouts.at(-1);
    if (layout) layout.frames++;
    if (frame.settled && this.layoutState === 'running') {
      if (layout && layout.settledAt === null) layout.settledAt = performance.now();
      performance.mark?.('engram:graph-settled', { detail: { nodes: this.nodes.length } });
      this.setLayoutState('settled');
    } else if (!frame.settled && this.layoutState === 'settled') {
      this.setLayoutState('running');
    }
    this.requestDraw();
  }

  private setLayoutState(state: LayoutState): void {
    if (state === this.layoutState && this.canvas.dataset.layout === state) return;
    this.layoutState = state;
    this.canvas.dataset.layout = state;
    this.callbacks.onLayoutState?.(state);
  }

  // ── view ──────────────────────────────────────────────────────────────────

  private resize(): void {
    const width = this.canvas.clientWidth;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    if (
      width === this.width &&
      dpr === this.dpr &&
      this.canvas.height === Math.round(this.height * dpr)
    )
      return;
    this.width = width;
    this.dpr = dpr;
    this.canvas.width = Math.max(1, Math.round(width * dpr));
    this.canvas.height = Math.max(1, Math.round(this.height * dpr));
    this.overlayBox = this.measureOverlay();
    if (this.autoFit) this.fit();
    this.requestDraw();
  }

  /** Fits the laid-out nodes (or the centre, before there are any) into the canvas. */
  private fit(): void {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const node of this.nodes) {
      if (!node.placed) continue;
      minX = Math.min(minX, node.x - node.radius);
      maxX = Math.max(maxX, node.x + node.radius);
      minY = Math.min(minY, node.y - node.radius);
      // Room for the label under the node.
      maxY = Math.max(maxY, node.y + node.radius + 16);
    }
    let target: ZoomTransform;
    if (minX === Infinity || this.width === 0) {
      target = zoomIdentity.translate(this.width / 2, this.height / 2);
    } else {
      const spanX = Math.max(maxX - minX, 1);
      const spanY = Math.max(maxY - minY, 1);
      // Labels near the sides are moved inside the canvas when drawn: no room kept for them here.
      const k = Math.min(
        FIT_ZOOM_MAX,
        Math.max(
          ZOOM_MIN,
          Math.min((this.width - 2 * FIT_PADDING) / spanX, (this.height - 2 * FIT_PADDING) / spanY),
        ),
      );
      target = zoomIdentity
        .translate(this.width / 2, this.height / 2)
        .scale(k)
        .translate(-(minX + maxX) / 2, -(minY + maxY) / 2);
    }
    // Through d3-zoom, so the next wheel or pan starts from here.
    this.zoomBehavior.transform(select(this.canvas), target);
  }

  private requestDraw(): void {
    if (this.frameRequested || typeof requestAnimationFrame === 'undefined') return;
    this.frameRequested = requestAnimationFrame(() => {
      this.frameRequested = 0;
      this.draw();
    });
  }

  private readPalette(): Palette {
    const style = getComputedStyle(this.canvas);
    const read = (name: string, fallback: string) =>
      style.getPropertyValue(name).trim() || fallback;
    return {
      edge: read('--muted-foreground', '#71717a'),
      label: read('--foreground', '#09090b'),
      halo: read('--card', '#ffffff'),
      ring: read('--primary', '#7c3aed'),
      focus: read('--ring', '#8b5cf6'),
    };
  }

  private draw(): void {
    const context = this.context;
    if (!context) return;
    const started = performance.now();
    const { k, x: tx, y: ty } = this.transform;
    const { dpr, palette } = this;
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (this.nodes.length === 0) return;

    // The world rectangle in view, with a margin for radii and labels.
    const margin = 40 / k;
    const x0 = -tx / k - margin;
    const y0 = -ty / k - margin;
    const x1 = (this.width - tx) / k + margin;
    const y1 = (this.height - ty) / k + margin;
    const inView = (node: SceneNode) =>
      node.placed && node.x >= x0 && node.x <= x1 && node.y >= y0 && node.y <= y1;

    context.setTransform(dpr * k, 0, 0, dpr * k, dpr * tx, dpr * ty);
    const lit = this.lit;
    const litCentre = this.nodes[this.focusIndex >= 0 ? this.focusIndex : this.hoverIndex]?.id;

    // Edges: one path for the ordinary ones, one for the dimmed, one for the lit.
    const normal = new Path2D();
    const dimmed = new Path2D();
    const bright = new Path2D();
    const arrows = new Path2D();
    const dimArrows = new Path2D();
    let edgesInView = 0;
    const visibleEdges: SceneEdge[] = [];
    for (const edge of this.edges) {
      const a = this.nodes[edge.from]!;
      const b = this.nodes[edge.to]!;
      if (!a.placed || !b.placed) continue;
      if (
        Math.max(a.x, b.x) < x0 ||
        Math.min(a.x, b.x) > x1 ||
        Math.max(a.y, b.y) < y0 ||
        Math.min(a.y, b.y) > y1
      )
        continue;
      edgesInView++;
      visibleEdges.push(edge);
      const touchesCentre = lit !== null && (a.id === litCentre || b.id === litCentre);
      const path = lit === null ? normal : touchesCentre ? bright : dimmed;
      path.moveTo(a.x, a.y);
      path.lineTo(b.x, b.y);
    }
    const drawArrows = edgesInView <= ARROWS_IN_VIEW_MAX && k >= 0.35;
    if (drawArrows) {
      const size = 5;
      for (const edge of visibleEdges) {
        const a = this.nodes[edge.from]!;
        const b = this.nodes[edge.to]!;
        const dx = b.x - a.x;
        const dy = b.y - a.y;
        const length = Math.hypot(dx, dy);
        if (length < a.radius + b.radius + 2) continue;
        const ux = dx / length;
        const uy = dy / length;
        const tipX = b.x - ux * (b.radius + 1.5);
        const tipY = b.y - uy * (b.radius + 1.5);
        const path = lit !== null && a.id !== litCentre && b.id !== litCentre ? dimArrows : arrows;
        path.moveTo(tipX, tipY);
        path.lineTo(tipX - ux * size * 1.6 - uy * size, tipY - uy * size * 1.6 + ux * size);
        path.lineTo(tipX - ux * size * 1.6 + uy * size, tipY - uy * size * 1.6 - ux * size);
        path.closePath();
      }
    }
    // Many edges are drawn one device pixel wide: the rasteriser's hairline path is
    // 20× faster than a wider line (350 ms → 13 ms for 10,000 edges in software).
    context.lineWidth = edgesInView > HAIRLINE_EDGES_FROM ? 1 / (k * dpr) : 1.1 / k;
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

    // Nodes, one path per colour (and per lit/dimmed under a hover).
    const visible: number[] = [];
    const outlined = this.nodes.length <= OUTLINED_NODES_MAX;
    context.lineWidth = 1.5 / k;
    context.strokeStyle = palette.halo;
    for (const group of this.groups) {
      const on = new Path2D();
      const off = new Path2D();
      for (const index of group.members) {
        const node = this.nodes[index]!;
        if (!inView(node)) continue;
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

    const selected = this.selectedId === null ? undefined : this.indexById.get(this.selectedId);
    const ring = (index: number | undefined, color: string, gap: number, width: number) => {
      const node = index === undefined ? undefined : this.nodes[index];
      if (!node?.placed) return;
      context.beginPath();
      context.arc(node.x, node.y, node.radius + gap / k, 0, 2 * Math.PI);
      context.lineWidth = width / k;
      context.strokeStyle = color;
      context.stroke();
    };
    ring(selected, palette.ring, 3, 2.5);
    if (this.focusIndex >= 0) ring(this.focusIndex, palette.focus, 6, 1.5);

    // Search matches get a ring of their own, so they stand out before their labels do.
    if (this.matches) {
      for (const id of this.matches) ring(this.indexById.get(id), palette.focus, 3, 1.5);
    }

    // Labels in screen space, so they stay 11 px at every zoom; placed by room.
    context.setTransform(dpr, 0, 0, dpr, 0, 0);
    context.textAlign = 'center';
    context.textBaseline = 'top';
    context.lineJoin = 'round';
    context.lineWidth = 3;
    context.strokeStyle = palette.halo;
    context.fillStyle = palette.label;
    const labels = placeLabels(
      this.labelCandidates(visible, selected),
      this.width,
      this.height,
      this.labelObstacles(visible),
    );
    for (const label of labels) {
      const node = this.nodes[label.index]!;
      context.globalAlpha = lit === null || lit.has(node.id) ? 1 : 0.25;
      context.font = this.isStrong(label.index, selected) ? LABEL_FONT_STRONG : LABEL_FONT;
      const x = label.x + label.width / 2;
      const y = label.y + 1;
      context.strokeText(node.label, x, y);
      context.fillText(node.label, x, y);
    }
    context.globalAlpha = 1;
    this.drawnLabels = labels;
    if (this.canvas.dataset.labels !== String(labels.length)) {
      this.canvas.dataset.labels = String(labels.length);
    }

    this.drawTimes.push(performance.now() - started);
    if (this.drawTimes.length > DRAW_TIMES_KEPT) this.drawTimes.shift();
  }

  // ── labels ──────────────────────────────────────────────────────────────

  /** The hovered, keyboard-focused and selected nodes: labelled first, in the stronger font. */
  private isStrong(index: number, selected: number | undefined): boolean {
    return index === selected || index === this.hoverIndex || index === this.focusIndex;
  }

  /**
   * The visible nodes' labels in the order they claim room: hovered, focused,
   * selected, search matches, the hovered node's neighbours, then the best
   * connected. Labels not measured yet wait for their idle slice (see
   * measureLabels); the strong ones are measured at once.
   */
  private labelCandidates(visible: number[], selected: number | undefined): LabelCandidate[] {
    const context = this.context!;
    const { k, x: tx, y: ty } = this.transform;
    const shown = new Uint8Array(this.nodes.length);
    for (const index of visible) shown[index] = 1;
    const candidates: LabelCandidate[] = [];
    const offer = (index: number | undefined) => {
      if (index === undefined || index < 0 || shown[index] !== 1) return;
      shown[index] = 2;
      const node = this.nodes[index]!;
      let width = node.labelWidth;
      if (this.isStrong(index, selected)) {
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
        required: this.isStrong(index, selected),
      });
    };
    offer(this.hoverIndex);
    offer(this.focusIndex);
    offer(selected);
    if (this.matches)
      for (const index of this.labelOrder)
        if (this.matches.has(this.nodes[index]!.id)) offer(index);
    if (this.lit)
      for (const index of this.labelOrder) if (this.lit.has(this.nodes[index]!.id)) offer(index);
    for (const index of this.labelOrder) offer(index);
    return candidates;
  }

  /** What labels keep clear of: the overlay and the nodes big enough to hide. */
  private labelObstacles(visible: number[]): Box[] {
    const { k, x: tx, y: ty } = this.transform;
    const obstacles: Box[] = this.overlayBox ? [this.overlayBox] : [];
    for (const index of visible) {
      const node = this.nodes[index]!;
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

  /**
   * Measures label widths a slice at a time in idle time, best connected
   * first, so loading a large graph never spends one long task on text; each
   * slice redraws with the labels measured so far.
   */
  private measureLabels(): void {
    if (this.measureHandle !== null || !this.context) return;
    const context = this.context;
    const slice = () => {
      this.measureHandle = null;
      const started = performance.now();
      context.font = LABEL_FONT;
      let measured = 0;
      let remaining = false;
      for (const index of this.labelOrder) {
        const node = this.nodes[index]!;
        if (node.labelWidth !== 0) continue;
        if (measured > 0 && performance.now() - started > MEASURE_SLICE_MS) {
          remaining = true;
          break;
        }
        node.labelWidth = context.measureText(node.label).width || 1;
        measured++;
      }
      if (measured > 0) this.requestDraw();
      if (remaining) this.measureLabels();
    };
    this.measureHandle =
      typeof requestIdleCallback === 'function'
        ? requestIdleCallback(slice, { timeout: 100 })
        : window.setTimeout(slice, 0);
  }

  private cancelMeasuring(): void {
    if (this.measureHandle === null) return;
    if (typeof cancelIdleCallback === 'function') cancelIdleCallback(this.measureHandle);
    else window.clearTimeout(this.measureHandle);
    this.measureHandle = null;
  }

  // ── pointer and keyboard ────────────────────────────────────────────────

  private listen(target: EventTarget, type: string, handler: (event: Event) => void): void {
    target.addEventListener(type, handler);
    this.cleanups.push(() => target.removeEventListener(type, handler));
  }

  private local(clientX: number, clientY: number): [number, number] {
    const rect = this.canvas.getBoundingClientRect();
    return [clientX - rect.left, clientY - rect.top];
  }

  /** The topmost node under a client point, or -1. */
  private nodeAt(clientX: number, clientY: number): number {
    const [px, py] = this.local(clientX, clientY);
    const [x, y] = this.transform.invert([px, py]);
    const slop = 3 / this.transform.k;
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const node = this.nodes[i]!;
      if (!node.placed) continue;
      const reach = node.radius + slop;
      const dx = node.x - x;
      const dy = node.y - y;
      if (dx * dx + dy * dy <= reach * reach) return i;
    }
    return -1;
  }

  /** d3-zoom pans from the background only: a press on a node drags the node. */
  private zoomAccepts(event: Event): boolean {
    if (event.type === 'wheel') return true;
    const mouse = event as MouseEvent;
    if (mouse.ctrlKey || mouse.button) return false;
    if (event.type === 'mousedown' || event.type === 'dblclick') {
      return this.nodeAt(mouse.clientX, mouse.clientY) < 0;
    }
    if (event.type === 'touchstart') {
      const touches = (event as TouchEvent).touches;
      const first = touches[0];
      return touches.length > 1 || !first || this.nodeAt(first.clientX, first.clientY) < 0;
    }
    return true;
  }

  private pointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    const index = this.nodeAt(event.clientX, event.clientY);
    if (index < 0) {
      this.backgroundPress = { x: event.clientX, y: event.clientY };
      return;
    }
    this.backgroundPress = null;
    this.press = {
      pointerId: event.pointerId,
      index,
      startX: event.clientX,
      startY: event.clientY,
      dragging: false,
    };
    this.canvas.setPointerCapture?.(event.pointerId);
  }

  private pointerMove(event: PointerEvent): void {
    const press = this.press;
    if (!press || press.pointerId !== event.pointerId) {
      if (event.buttons === 0 || event.pointerType === 'mouse') {
        const index = this.nodeAt(event.clientX, event.clientY);
        this.setHover(index);
      }
      return;
    }
    if (
      !press.dragging &&
      Math.hypot(event.clientX - press.startX, event.clientY - press.startY) < CLICK_SLOP
    )
      return;
    press.dragging = true;
    this.autoFit = false;
    const node = this.nodes[press.index];
    if (!node) return;
    const [x, y] = this.transform.invert(this.local(event.clientX, event.clientY));
    node.x = x;
    node.y = y;
    node.placed = true;
    this.worker.postMessage({ kind: 'drag', version: this.version, index: press.index, x, y });
    this.requestDraw();
  }

  private pointerUp(event: PointerEvent): void {
    const press = this.press;
    if (press && press.pointerId === event.pointerId) {
      this.press = null;
      this.canvas.releasePointerCapture?.(press.pointerId);
      if (press.dragging) {
        this.worker.postMessage({ kind: 'release', version: this.version, index: press.index });
      } else if (event.type === 'pointerup') {
        const node = this.nodes[press.index];
        if (node) this.callbacks.onNodeActivate?.(this.viewOf(node));
      }
      return;
    }
    const background = this.backgroundPress;
    this.backgroundPress = null;
    if (
      background &&
      event.type === 'pointerup' &&
      Math.hypot(event.clientX - background.x, event.clientY - background.y) < CLICK_SLOP
    ) {
      this.callbacks.onBackgroundClick?.();
    }
  }

  private keyDown(event: KeyboardEvent): void {
    const count = this.nodes.length;
    switch (event.key) {
      case 'ArrowRight':
      case 'ArrowDown':
        if (count === 0) return;
        this.setFocus((this.focusIndex + 1) % count);
        break;
      case 'ArrowLeft':
      case 'ArrowUp':
        if (count === 0) return;
        this.setFocus((this.focusIndex - 1 + count) % count);
        break;
      case 'Enter':
      case ' ': {
        const node = this.nodes[this.focusIndex];
        if (!node) return;
        this.callbacks.onNodeActivate?.(this.viewOf(node));
        break;
      }
      case 'Escape':
        if (this.focusIndex < 0) return;
        this.setFocus(-1);
        break;
      case '+':
      case '=':
        this.zoomBy(1.3);
        break;
      case '-':
        this.zoomBy(1 / 1.3);
        break;
      case '0':
        this.resetZoom();
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  private setHover(index: number): void {
    if (this.press?.dragging) return;
    this.canvas.style.cursor = index >= 0 ? 'pointer' : 'grab';
    if (index === this.hoverIndex) return;
    this.hoverIndex = index;
    this.updateLit();
    this.requestDraw();
  }

  private setFocus(index: number): void {
    if (index === this.focusIndex) return;
    this.focusIndex = index;
    this.updateLit();
    const node = this.nodes[index];
    if (node?.placed) {
      // Bring the focused node into view if it is outside.
      const [sx, sy] = this.transform.apply([node.x, node.y]);
      if (sx < 0 || sy < 0 || sx > this.width || sy > this.height) {
        this.autoFit = false;
        this.zoomBehavior.translateTo(select(this.canvas), node.x, node.y);
      }
    }
    this.callbacks.onFocusNode?.(node ? this.viewOf(node) : null);
    this.requestDraw();
  }

  /** Hover, or else keyboard focus, lights a node and its neighbours; the rest dims. */
  private updateLit(): void {
    const index = this.focusIndex >= 0 ? this.focusIndex : this.hoverIndex;
    const node = this.nodes[index];
    this.lit = node ? neighbourSet(node.id, this.rawEdges) : null;
  }

  private viewOf(node: SceneNode): GraphNodeView {
    return {
      id: node.id,
      name: node.name,
      type: node.type,
      observationsCount: node.observationsCount,
    };
  }

  // ── probe ─────────────────────────────────────────────────────────────────

  private exposeProbe(): void {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const scene = this;
    this.canvas.graphProbe = {
      get nodeCount() {
        return scene.nodes.length;
      },
      get edgeCount() {
        return scene.edges.length;
      },
      get layoutState() {
        return scene.layoutState;
      },
      get zoom() {
        return scene.transform.k;
      },
      screenPositionOf(id: string) {
        const index = scene.indexById.get(id);
        const node = index === undefined ? undefined : scene.nodes[index];
        if (!node?.placed) return null;
        const rect = scene.canvas.getBoundingClientRect();
        const [x, y] = scene.transform.apply([node.x, node.y]);
        return { x: rect.left + x, y: rect.top + y };
      },
      get drawTimes() {
        return scene.drawTimes;
      },
      get layouts() {
        return scene.layouts;
      },
      get labels() {
        const rect = scene.canvas.getBoundingClientRect();
        return scene.drawnLabels.map((label) => ({
          id: scene.nodes[label.index]?.id ?? '',
          text: scene.nodes[label.index]?.label ?? '',
          x: rect.left + label.x,
          y: rect.top + label.y,
          width: label.width,
          height: label.height,
        }));
      },
      screenNodes() {
        const rect = scene.canvas.getBoundingClientRect();
        const { k } = scene.transform;
        return scene.nodes
          .filter((node) => node.placed)
          .map((node) => {
            const [x, y] = scene.transform.apply([node.x, node.y]);
            return { id: node.id, x: rect.left + x, y: rect.top + y, r: node.radius * k };
          });
      },
    };
  }
}
