import {
  forceCollide,
  forceLink,
  forceManyBody,
  forceSimulation,
  forceX,
  forceY,
  type ForceLink,
  type Simulation,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from 'd3-force';

/*
 * The force-directed layout, free of the DOM: the Web Worker (layout.worker.ts)
 * runs it off the main thread; tests run it directly. Node positions are kept
 * by id across loads, so new data (a live relation, a refresh) warms the
 * layout instead of starting it again from scratch.
 */

export interface LayoutNodeInput {
  id: string;
  radius: number;
  /** Room kept free around the node's centre (its label); the radius plus 12 if not given. */
  spacing?: number;
}

export interface LayoutLinkInput {
  source: string;
  target: string;
}

interface SimNode extends SimulationNodeDatum {
  id: string;
  radius: number;
  spacing: number;
}

type SimLink = SimulationLinkDatum<SimNode>;

/** Alpha for a layout with nothing known yet, after nodes were added, after only links changed. */
export const ALPHA_FRESH = 1;
export const ALPHA_NODES_ADDED = 0.3;
export const ALPHA_LINKS_CHANGED = 0.12;
/** Alpha the layout is held at while a node is dragged. */
export const ALPHA_DRAG = 0.25;

/** Past this many nodes the layout cools in half the ticks, without the label spacing (usable at 5,000). */
export const LARGE_GRAPH = 1500;

const DEFAULT_DECAY = 1 - Math.pow(0.001, 1 / 300);
const LARGE_DECAY = 1 - Math.pow(0.001, 1 / 150);

export interface LoadResult {
  /** The alpha the layout was (re)started with; 0 when nothing that moves nodes changed. */
  alpha: number;
  /** Nodes that kept the position they had before this load. */
  kept: number;
}

/** A small deterministic generator, so a layout is the same on every run. */
function lcg(seed = 1): () => number {
  let state = seed;
  return () => {
    state = (1664525 * state + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}

export class LayoutEngine {
  private nodes: SimNode[] = [];
  private linkKeys = new Set<string>();
  private pinnedId: string | null = null;
  private readonly random = lcg(7);
  private readonly simulation: Simulation<SimNode, SimLink>;
  private readonly linkForce: ForceLink<SimNode, SimLink>;
  /** Room around each node for its label; left out of large graphs, where it costs a third of a tick. */
  private readonly collideForce = forceCollide<SimNode>((node) => node.spacing).iterations(1);
  /** Ticks run since the last load. */
  ticks = 0;

  constructor() {
    this.linkForce = forceLink<SimNode, SimLink>()
      .id((node) => node.id)
      .distance((link) => {
        const source = link.source as SimNode;
        const target = link.target as SimNode;
        return 26 + source.spacing + target.spacing;
      });
    // forceSimulation starts its own timer: stopped at once, the worker paces the ticks.
    this.simulation = forceSimulation<SimNode, SimLink>()
      .stop()
      .force('link', this.linkForce)
      .force('charge', forceManyBody<SimNode>().strength(-260).theta(0.9).distanceMax(900))
      // Pulls toward the centre keep unconnected nodes and separate clusters in view.
      .force('x', forceX<SimNode>(0).strength(0.035))
      .force('y', forceY<SimNode>(0).strength(0.035));
    this.simulation.alpha(0);
  }

  get size(): number {
    return this.nodes.length;
  }

  get alpha(): number {
    return this.simulation.alpha();
  }

  /**
   * Replaces the graph. Nodes already laid out keep their position and speed;
   * a new node starts beside a neighbour that has one (or where d3 puts new
   * nodes, near the centre). `pinnedId` is held at the centre.
   */
  load(
    nodes: readonly LayoutNodeInput[],
    links: readonly LayoutLinkInput[],
    options: { pinnedId?: string | null } = {},
  ): LoadResult {
    const previous = new Map(this.nodes.map((node) => [node.id, node]));
    const next: SimNode[] = [];
    const byId = new Map<string, SimNode>();
    let kept = 0;
    for (const input of nodes) {
      if (byId.has(input.id)) continue;
      const known = previous.get(input.id);
      const spacing = input.spacing ?? input.radius + 12;
      const node: SimNode = known ?? { id: input.id, radius: input.radius, spacing };
      node.radius = input.radius;
      node.spacing = spacing;
      node.fx = null;
      node.fy = null;
      if (known) kept++;
      next.push(node);
      byId.set(node.id, node);
    }

    const nextLinks: SimLink[] = [];
    const nextKeys = new Set<string>();
    for (const link of links) {
      if (!byId.has(link.source) || !byId.has(link.target) || link.source === link.target) continue;
      nextLinks.push({ source: link.source, target: link.target });
      nextKeys.add(`${link.source}\u0000${link.target}`);
    }

    // New nodes start beside a neighbour that already has a place.
    if (kept > 0) {
      for (const link of nextLinks) {
        const source = byId.get(link.source as string)!;
        const target = byId.get(link.target as string)!;
        this.placeBeside(source, target);
        this.placeBeside(target, source);
      }
    }

    this.pinnedId = options.pinnedId ?? null;
    const pinned = this.pinnedId === null ? undefined : byId.get(this.pinnedId);
    if (pinned) {
      pinned.fx = 0;
      pinned.fy = 0;
    }

    const linksChanged =
      nextKeys.size !== this.linkKeys.size || [...nextKeys].some((key) => !this.linkKeys.has(key));
    const added = next.length - kept;
    const removed = this.nodes.length - kept;
    let alpha: number;
    if (kept === 0) alpha = next.length > 0 ? ALPHA_FRESH : 0;
    else if (added > 0) alpha = ALPHA_NODES_ADDED;
    else if (linksChanged || removed > 0) alpha = ALPHA_LINKS_CHANGED;
    else alpha = 0;

    this.nodes = next;
    this.linkKeys = nextKeys;
    this.simulation.nodes(next);
    this.linkForce.links(nextLinks);
    const large = next.length > LARGE_GRAPH;
    this.simulation
      .force('collide', large ? null : this.collideForce)
      .alphaDecay(large ? LARGE_DECAY : DEFAULT_DECAY)
      .alphaTarget(0);
    // A warm start keeps the current motion settling; it never lowers a running layout's heat.
    this.simulation.alpha(Math.max(alpha, kept > 0 ? this.simulation.alpha() : 0));
    this.ticks = 0;
    return { alpha, kept };
  }

  private placeBeside(node: SimNode, anchor: SimNode): void {
    if (node.x !== undefined || anchor.x === undefined || anchor.y === undefined) return;
    const angle = this.random() * 2 * Math.PI;
    const distance = anchor.spacing + node.spacing;
    node.x = anchor.x + distance * Math.cos(angle);
    node.y = anchor.y + distance * Math.sin(angle);
  }

  /** True once the layout has cooled and nothing holds it warm. */
  get settled(): boolean {
    return (
      this.simulation.alphaTarget() === 0 && this.simulation.alpha() < this.simulation.alphaMin()
    );
  }

  tick(count = 1): void {
    if (this.nodes.length === 0) {
      this.simulation.alpha(0);
      return;
    }
    this.simulation.tick(count);
    this.ticks += count;
  }

  /** Ticks until settled (or `maxTicks`): the whole layout at once, without animation. */
  settle(maxTicks = 1000): void {
    for (let i = 0; i < maxTicks && !this.settled; i++) this.tick();
  }

  /** Holds node `index` at (x, y); with `heat`, keeps the layout moving around it. */
  drag(index: number, x: number, y: number, heat: boolean): void {
    const node = this.nodes[index];
    if (!node) return;
    node.fx = x;
    node.fy = y;
    node.x = x;
    node.y = y;
    if (heat) this.simulation.alphaTarget(ALPHA_DRAG).alpha(Math.max(this.alpha, ALPHA_DRAG));
  }

  /**
   * Lets go of node `index`. With `stay` (reduced motion) it stays where it was
   * dropped and nothing else moves; otherwise the layout settles around it.
   */
  release(index: number, stay: boolean): void {
    const node = this.nodes[index];
    this.simulation.alphaTarget(0);
    if (!node || stay || node.id === this.pinnedId) return;
    node.fx = null;
    node.fy = null;
  }

  /** x0, y0, x1, y1, … in the order of the last load. */
  positions(): Float32Array {
    const out = new Float32Array(this.nodes.length * 2);
    this.nodes.forEach((node, i) => {
      out[2 * i] = node.x ?? 0;
      out[2 * i + 1] = node.y ?? 0;
    });
    return out;
  }
}
