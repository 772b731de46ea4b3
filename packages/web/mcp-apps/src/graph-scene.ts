import { entityTypeColor, typeLabel } from '@engram/shared';
import type { LayoutFrame } from '../../src/components/graph-canvas/layout/protocol';
import { GraphLayout } from './graph-layout';

const SVG = 'http://www.w3.org/2000/svg';

export interface SceneNode {
  name: string;
  /** '' while only a relation has named it. */
  type: string;
  observations: string[];
  x: number;
  y: number;
  degree: number;
  element?: SVGGElement;
}

export interface SceneEdge {
  key: string;
  from: string;
  to: string;
  type: string;
  element?: SVGGElement;
}

/** Past this many nodes only the important ones are labelled until the person zooms in. */
const ALL_LABELS_UPTO = 120;
/** Past this many edges their types show only around the focus until the person zooms in. */
const ALL_EDGE_LABELS_UPTO = 40;

const svg = <K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string> = {}) => {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  return element;
};

export const radiusOf = (node: SceneNode) => 5 + Math.min(7, Math.sqrt(node.degree) * 1.6);

/**
 * The graph drawn in SVG: nodes in their type's colour with their names,
 * relations with their types; zoom (wheel, buttons), pan (drag the
 * background), drag a node, click one to focus it.
 */
export class GraphScene {
  readonly root: SVGSVGElement;
  private readonly world = svg('g');
  private readonly edgeLayer = svg('g', { class: 'edges' });
  private readonly nodeLayer = svg('g', { class: 'nodes' });
  private order: SceneNode[] = [];
  private edges: SceneEdge[] = [];
  private version = 0;
  private view = { k: 1, x: 0, y: 0 };
  private fitted = false;
  private settledOnce = false;
  readonly layout: GraphLayout;
  settled = false;
  private timing = false;
  /** Milliseconds from a load to its first frame painted (the probe the e2e test reads). */
  firstFrameMs: number | undefined;
  private loadedAt = 0;

  constructor(private readonly onFocus: (name: string) => void) {
    this.root = svg('svg', { class: 'graph', role: 'img', 'aria-label': 'Knowledge graph' });
    this.world.append(this.edgeLayer, this.nodeLayer);
    this.root.append(this.world);
    this.layout = new GraphLayout((frame) => this.onFrame(frame));
    this.listen();
  }

  /** Draws these nodes and edges (positions kept for the nodes it had) and lays them out. */
  load(nodes: SceneNode[], edges: SceneEdge[], pinned: string | undefined): void {
    this.order = nodes;
    this.edges = edges;
    this.settled = false;
    this.loadedAt = performance.now();
    this.firstFrameMs = undefined;
    const index = new Map(nodes.map((node, i) => [node.name, i]));
    this.edgeLayer.replaceChildren(...edges.map((edge) => (edge.element ??= this.drawEdge(edge))));
    this.nodeLayer.replaceChildren(...nodes.map((node, i) => this.drawNode(node, i)));
    this.root.classList.toggle('all-labels', nodes.length <= ALL_LABELS_UPTO);
    this.root.classList.toggle('all-edge-labels', edges.length <= ALL_EDGE_LABELS_UPTO);
    this.markImportant();
    this.timings = { dom: performance.now() - this.loadedAt };
    const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.layout.post({
      kind: 'load',
      version: ++this.version,
      nodes: nodes.map((node) => ({ id: node.name, radius: radiusOf(node) })),
      links: edges
        .filter((edge) => index.has(edge.from) && index.has(edge.to))
        .map((edge) => ({ source: edge.from, target: edge.to })),
      pinnedId: pinned ?? null,
      animate: !reduced,
    });
    this.timings.posted = performance.now() - this.loadedAt;
  }
  timings: Record<string, number> = {};

  /** Highlights the focus, its relations and neighbours; `matches` (a search) stand out, others dim. */
  highlight(focus: string | undefined, matches: Set<string> | undefined): void {
    const near = new Set<string>();
    for (const edge of this.edges) {
      const hot = focus !== undefined && (edge.from === focus || edge.to === focus);
      edge.element?.classList.toggle('hot', hot);
      if (hot) near.add(edge.from).add(edge.to);
    }
    for (const node of this.order) {
      const element = node.element!;
      element.classList.toggle('focus', node.name === focus);
      element.classList.toggle('near', near.has(node.name));
      element.classList.toggle('match', matches?.has(node.name) ?? false);
      element.classList.toggle('dim', matches !== undefined && !matches.has(node.name));
    }
  }

  zoomBy(factor: number, cx = this.width() / 2, cy = this.height() / 2): void {
    const k = Math.min(6, Math.max(0.1, this.view.k * factor));
    this.view.x = cx - ((cx - this.view.x) * k) / this.view.k;
    this.view.y = cy - ((cy - this.view.y) * k) / this.view.k;
    this.view.k = k;
    this.applyView();
  }

  /** Frames every node, or centres `name`. */
  fit(name?: string): void {
    const w = this.width();
    const h = this.height();
    const target = name ? this.order.filter((node) => node.name === name) : this.order;
    if (target.length === 0) return;
    const xs = target.map((node) => node.x);
    const ys = target.map((node) => node.y);
    const [minX, maxX, minY, maxY] = [
      Math.min(...xs) - 40,
      Math.max(...xs) + 40,
      Math.min(...ys) - 30,
      Math.max(...ys) + 30,
    ];
    const k = name
      ? Math.max(this.view.k, 1)
      : Math.min(2, Math.max(0.1, Math.min(w / (maxX - minX), h / (maxY - minY))));
    this.view = { k, x: w / 2 - ((minX + maxX) / 2) * k, y: h / 2 - ((minY + maxY) / 2) * k };
    this.applyView();
  }

  private width = () => this.root.clientWidth || 600;
  private height = () => this.root.clientHeight || 400;

  private applyView(): void {
    const { k, x, y } = this.view;
    this.world.setAttribute('transform', `translate(${x},${y}) scale(${k})`);
    this.root.classList.toggle('zoomed', k >= 1.3);
    // Labels keep their size on screen whatever the zoom (graph.css divides by it).
    this.root.style.setProperty('--k', String(k));
  }

  private drawNode(node: SceneNode, index: number): SVGGElement {
    const element = (node.element ??= svg('g', { class: 'node' }));
    element.dataset.index = String(index);
    element.dataset.name = node.name;
    const r = radiusOf(node);
    const color = node.type ? entityTypeColor(node.type) : 'var(--edge)';
    const label = svg('text', { x: String(r + 4), y: '4' });
    label.textContent = node.name.length > 28 ? `${node.name.slice(0, 27)}…` : node.name;
    element.replaceChildren(svg('circle', { r: String(r), fill: color }), label);
    element.setAttribute('tabindex', '0');
    element.setAttribute('role', 'button');
    element.setAttribute(
      'aria-label',
      node.type ? `${node.name} (${typeLabel(node.type)})` : node.name,
    );
    return element;
  }

  private drawEdge(edge: SceneEdge): SVGGElement {
    const element = svg('g', { class: 'edge' });
    const label = svg('text', { 'text-anchor': 'middle' });
    label.textContent = edge.type;
    element.append(svg('line'), label);
    return element;
  }

  /** The focus, its neighbours and the best-connected nodes keep their labels when others hide theirs. */
  private markImportant(): void {
    const top = new Set(
      [...this.order]
        .sort((a, b) => b.degree - a.degree)
        .slice(0, 25)
        .map((node) => node.name),
    );
    for (const node of this.order) node.element!.classList.toggle('important', top.has(node.name));
  }

  private onFrame(frame: LayoutFrame): void {
    if (frame.version !== this.version) return;
    const { positions } = frame;
    for (let i = 0; i < this.order.length; i++) {
      const node = this.order[i]!;
      node.x = positions[2 * i]!;
      node.y = positions[2 * i + 1]!;
      node.element!.setAttribute('transform', `translate(${node.x},${node.y})`);
    }
    const at = new Map(this.order.map((node) => [node.name, node]));
    for (const edge of this.edges) {
      const a = at.get(edge.from);
      const b = at.get(edge.to);
      if (!a || !b || !edge.element) continue;
      const [line, label] = edge.element.children as unknown as [SVGLineElement, SVGTextElement];
      line.setAttribute('x1', String(a.x));
      line.setAttribute('y1', String(a.y));
      line.setAttribute('x2', String(b.x));
      line.setAttribute('y2', String(b.y));
      label.setAttribute('x', String((a.x + b.x) / 2));
      label.setAttribute('y', String((a.y + b.y) / 2 - 3));
    }
    if (this.firstFrameMs === undefined && !this.timing) {
      // Drawn once the browser has painted the load's first positions.
      const { version, loadedAt } = this;
      this.timing = true;
      requestAnimationFrame(() =>
        setTimeout(() => {
          this.timing = false;
          if (version === this.version) this.firstFrameMs = performance.now() - loadedAt;
        }, 0),
      );
    }
    // Framed at once, and again when the first layout has spread out; later loads keep the view.
    if (!this.fitted) this.fit();
    if (frame.settled && !this.settledOnce) this.fit();
    this.fitted = true;
    this.settledOnce ||= frame.settled;
    this.settled = frame.settled;
    this.root.dataset.settled = String(frame.settled);
  }

  private nodeAt(target: EventTarget | null): SVGGElement | null {
    return target instanceof Element ? target.closest('g.node') : null;
  }

  private toWorld(event: PointerEvent): [number, number] {
    const box = this.root.getBoundingClientRect();
    return [
      (event.clientX - box.left - this.view.x) / this.view.k,
      (event.clientY - box.top - this.view.y) / this.view.k,
    ];
  }

  private listen(): void {
    let drag: {
      index?: number;
      x: number;
      y: number;
      moved: boolean;
      vx: number;
      vy: number;
    } | null = null;
    this.root.addEventListener('pointerdown', (event) => {
      const node = this.nodeAt(event.target);
      drag = {
        index: node ? Number(node.dataset.index) : undefined,
        x: event.clientX,
        y: event.clientY,
        moved: false,
        vx: this.view.x,
        vy: this.view.y,
      };
      this.root.setPointerCapture(event.pointerId);
    });
    this.root.addEventListener('pointermove', (event) => {
      if (!drag) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      drag.moved = true;
      if (drag.index === undefined) {
        this.view.x = drag.vx + dx;
        this.view.y = drag.vy + dy;
        this.applyView();
      } else {
        const [x, y] = this.toWorld(event);
        this.layout.post({ kind: 'drag', version: this.version, index: drag.index, x, y });
      }
    });
    const end = (event: PointerEvent) => {
      if (!drag) return;
      const { index, moved } = drag;
      drag = null;
      if (index === undefined) return;
      if (moved) this.layout.post({ kind: 'release', version: this.version, index });
      else if (event.type === 'pointerup') this.onFocus(this.order[index]!.name);
    };
    this.root.addEventListener('pointerup', end);
    this.root.addEventListener('pointercancel', end);
    this.root.addEventListener('keydown', (event) => {
      const node = this.nodeAt(event.target);
      if (node && (event.key === 'Enter' || event.key === ' ')) {
        event.preventDefault();
        this.onFocus(node.dataset.name!);
      }
    });
    this.root.addEventListener(
      'wheel',
      (event) => {
        event.preventDefault();
        const box = this.root.getBoundingClientRect();
        this.zoomBy(
          Math.exp(-event.deltaY * 0.0015),
          event.clientX - box.left,
          event.clientY - box.top,
        );
      },
      { passive: false },
    );
  }
}
