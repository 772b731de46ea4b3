import './view.css';
import './graph.css';
import { typeLabel } from '@engram/shared';
import { fill, h, notice, typeChip } from './dom';
import { GraphScene, type SceneEdge, type SceneNode } from './graph-scene';
import { startView, truncationOf, type ToolAnswer } from './host';

/*
 * ui://engram/graph: what read_graph, get_neighbors and find_path answered,
 * as an explorable graph. Clicking a node focuses it and loads its
 * neighbours through get_neighbors.
 */

interface McpGraph {
  entities?: { name: string; entityType: string; observations: string[] }[];
  relations?: { from: string; to: string; relationType: string }[];
  found?: boolean;
  path?: string[];
}

const nodes = new Map<string, SceneNode>();
const edges = new Map<string, SceneEdge>();
const expanded = new Set<string>();
let focus: string | undefined;
let query = '';

const main = document.getElementById('view')!;
const status = h('span', { class: 'muted', 'aria-live': 'polite' });
const search = h('input', {
  type: 'search',
  placeholder: 'Search entities',
  'aria-label': 'Search entities',
});
const panel = h('aside', { class: 'panel' });
const scene = new GraphScene((name) => void focusOn(name));
const canvas = h('div', { class: 'canvas' }, scene.root);
const toolbar = h(
  'div',
  { class: 'row toolbar' },
  search,
  h('button', { onclick: () => scene.zoomBy(1 / 1.3), 'aria-label': 'Zoom out' }, '−'),
  h('button', { onclick: () => scene.zoomBy(1.3), 'aria-label': 'Zoom in' }, '+'),
  h('button', { onclick: () => scene.fit() }, 'Fit'),
  status,
);
const body = h('div', { class: 'graph-body' }, canvas, panel);

const view = startView('Engram graph', {
  onInput(args) {
    // get_neighbors is opened around one entity: focus it once it is drawn.
    if (typeof args.name === 'string') focus = args.name;
  },
  onResult: (answer) => void show(answer),
});

/** Adds what a graph answer holds; relations' far ends the answer did not include become bare nodes. */
function merge(graph: McpGraph): void {
  for (const entity of graph.entities ?? []) {
    const known = nodes.get(entity.name);
    if (known) {
      known.type = entity.entityType;
      known.observations = entity.observations;
    } else {
      nodes.set(entity.name, {
        name: entity.name,
        type: entity.entityType,
        observations: entity.observations,
        x: 0,
        y: 0,
        degree: 0,
      });
    }
  }
  for (const relation of graph.relations ?? []) {
    const key = `${relation.from}\u0000${relation.relationType}\u0000${relation.to}`;
    if (edges.has(key)) continue;
    for (const end of [relation.from, relation.to]) {
      if (!nodes.has(end)) {
        nodes.set(end, { name: end, type: '', observations: [], x: 0, y: 0, degree: 0 });
      }
    }
    edges.set(key, { key, from: relation.from, to: relation.to, type: relation.relationType });
  }
  for (const node of nodes.values()) node.degree = 0;
  for (const edge of edges.values()) {
    nodes.get(edge.from)!.degree++;
    nodes.get(edge.to)!.degree++;
  }
}

function redraw(): void {
  scene.load([...nodes.values()], [...edges.values()], focus);
  status.textContent = `${nodes.size} ${nodes.size === 1 ? 'entity' : 'entities'}, ${edges.size} ${edges.size === 1 ? 'relation' : 'relations'}`;
  applyHighlight();
}

function matches(): Set<string> | undefined {
  const q = query.trim().toLowerCase();
  if (!q) return undefined;
  return new Set(
    [...nodes.values()]
      .filter((node) => node.name.toLowerCase().includes(q) || node.type.toLowerCase().includes(q))
      .map((node) => node.name),
  );
}

function applyHighlight(): void {
  scene.highlight(focus, matches());
}

function renderPanel(node: SceneNode | undefined, loading = false): void {
  if (!node) {
    fill(panel, h('p', { class: 'muted' }, 'Click an entity to focus it and load its neighbours.'));
    return;
  }
  const related = [...edges.values()].filter(
    (edge) => edge.from === node.name || edge.to === node.name,
  );
  fill(
    panel,
    h('h1', {}, node.name),
    node.type ? h('p', {}, typeChip(node.type)) : null,
    h('h2', {}, `Observations (${node.observations.length})`),
    node.observations.length
      ? h(
          'ul',
          { class: 'list' },
          ...node.observations.slice(0, 8).map((text) => h('li', {}, text)),
        )
      : h('p', { class: 'muted' }, loading ? 'Loading…' : 'None.'),
    node.observations.length > 8
      ? h('p', { class: 'muted' }, `and ${node.observations.length - 8} more`)
      : null,
    h('h2', {}, `Relations (${related.length})`),
    h(
      'ul',
      { class: 'list' },
      ...related.slice(0, 30).map((edge) => {
        const other = edge.from === node.name ? edge.to : edge.from;
        return h(
          'li',
          {},
          edge.from === node.name ? '→ ' : '← ',
          h('span', { class: 'muted' }, typeLabel(edge.type)),
          ' ',
          h('button', { class: 'link', onclick: () => void focusOn(other) }, other),
        );
      }),
    ),
  );
}

/** Focuses an entity: highlighted, its details beside the graph, its neighbours loaded once. */
async function focusOn(name: string): Promise<void> {
  focus = name;
  applyHighlight();
  renderPanel(nodes.get(name), true);
  if (expanded.has(name)) return;
  expanded.add(name);
  try {
    const answer = await view.call<McpGraph>('get_neighbors', { name, depth: 1, limit: 100 });
    const before = nodes.size + edges.size;
    merge(answer);
    if (nodes.size + edges.size !== before) redraw();
    notice(main, undefined);
  } catch (error) {
    expanded.delete(name);
    notice(main, (error as Error).message, 'error');
  }
  if (focus === name) renderPanel(nodes.get(name));
}

async function show(answer: ToolAnswer): Promise<void> {
  main.removeAttribute('aria-busy');
  fill(main, toolbar, body);
  const graph = (answer.structuredContent ?? {}) as McpGraph;
  if (answer.isError) {
    notice(main, 'The tool failed; nothing to show.', 'error');
    return;
  }
  if (graph.path) {
    // find_path: the chain's entities, typed through open_nodes, and its relations only.
    if (!graph.found) {
      notice(main, truncationOf(answer) ?? 'No path between them within the hops asked.');
      renderPanel(undefined);
      return;
    }
    try {
      const opened = await view.call<McpGraph>('open_nodes', { names: graph.path });
      merge({ entities: opened.entities });
    } catch {
      // The path is drawn without its types.
    }
    merge({ relations: graph.relations });
    focus ??= graph.path[0];
  } else {
    merge(graph);
  }
  redraw();
  renderPanel(focus ? nodes.get(focus) : undefined);
  notice(main, truncationOf(answer));
  if (nodes.size === 0) notice(main, 'Nothing in memory here yet.');
}

search.addEventListener('input', () => {
  query = search.value;
  applyHighlight();
});
search.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return;
  const first = [...(matches() ?? [])][0];
  if (first) {
    scene.fit(first);
    void focusOn(first);
  }
});

/** What the e2e test reads: how many are drawn, whether the layout settled, and how fast it drew. */
(window as unknown as { engramGraph: unknown }).engramGraph = {
  get nodes() {
    return nodes.size;
  },
  get edges() {
    return edges.size;
  },
  get settled() {
    return scene.settled;
  },
  get firstFrameMs() {
    return scene.firstFrameMs;
  },
  get timings() {
    return scene.timings;
  },
  get layout() {
    return scene.layout.mode;
  },
  get workerRuns() {
    return scene.layout.proven;
  },
};
