import { describe, expect, it } from 'vitest';
import type { GraphView } from '../graph-view';
import {
  buildScene,
  EMPTY_SCENE,
  litAround,
  NO_EMPHASIS,
  nodeAt,
  placeNodes,
  selectedIndex,
} from './scene-model';

const node = (id: string, type = 'person', observationsCount = 0) => ({
  id,
  name: `Node ${id}`,
  type,
  observationsCount,
});
const edge = (source: string, target: string) => ({
  id: `${source}-${target}`,
  source,
  target,
  relationType: 'knows',
});

/** a–b, a–c, c–d, and an edge to a node the answer does not hold. */
const GRAPH: GraphView = {
  nodes: [node('a'), node('b', 'company'), node('c', 'person', 4), node('d', 'company')],
  edges: [edge('a', 'b'), edge('a', 'c'), edge('c', 'd'), edge('d', 'x')],
};

describe('buildScene', () => {
  it('keeps the edges whose ends it holds, with their ends as indices', () => {
    const scene = buildScene(GRAPH, EMPTY_SCENE);
    expect(scene.edges.map((e) => [e.from, e.to])).toEqual([
      [0, 1],
      [0, 2],
      [2, 3],
    ]);
    expect(scene.given).toHaveLength(4);
    expect(scene.indexById.get('c')).toBe(2);
  });

  it('offers labels best connected first, then most observed', () => {
    // a and c have two edges each, c the more observations; b and d one each.
    expect(buildScene(GRAPH, EMPTY_SCENE).labelOrder).toEqual([2, 0, 1, 3]);
  });

  it('groups nodes by colour, one group per type here', () => {
    const groups = buildScene(GRAPH, EMPTY_SCENE).groups.map((group) => group.members);
    expect(groups).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });

  it('keeps the place and measured label of nodes already on screen', () => {
    const first = buildScene(GRAPH, EMPTY_SCENE);
    placeNodes(first, new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), -1);
    first.nodes[0]!.labelWidth = 40;
    const next = buildScene({ nodes: [node('e'), node('a')], edges: [] }, first);
    expect(next.nodes[1]).toMatchObject({ id: 'a', x: 1, y: 2, placed: true, labelWidth: 40 });
    expect(next.nodes[0]).toMatchObject({ id: 'e', placed: false, labelWidth: 0 });
  });
});

describe('placeNodes and nodeAt', () => {
  it('moves every node but the dragged one', () => {
    const scene = buildScene(GRAPH, EMPTY_SCENE);
    placeNodes(scene, new Float32Array([0, 0, 100, 0, 0, 100, 100, 100]), 3);
    expect(scene.nodes.map((n) => n.placed)).toEqual([true, true, true, false]);
    expect(scene.nodes[1]).toMatchObject({ x: 100, y: 0 });
  });

  it('finds the topmost placed node within its radius and the slop', () => {
    const scene = buildScene(GRAPH, EMPTY_SCENE);
    placeNodes(scene, new Float32Array([0, 0, 100, 0, 0, 100, 100, 100]), -1);
    expect(nodeAt(scene, 2, 2, 0)).toBe(0);
    expect(nodeAt(scene, 100, 109, 0)).toBe(-1);
    expect(nodeAt(scene, 100, 109, 2)).toBe(3);
    expect(nodeAt(scene, 50, 50, 3)).toBe(-1);
  });
});

describe('emphasis', () => {
  it('lights the hovered node and its neighbours, keyboard focus first', () => {
    const scene = buildScene(GRAPH, EMPTY_SCENE);
    expect(litAround(scene, NO_EMPHASIS)).toBeNull();
    expect(litAround(scene, { ...NO_EMPHASIS, hover: 1 })).toEqual(new Set(['b', 'a']));
    expect(litAround(scene, { ...NO_EMPHASIS, hover: 1, focus: 3 })).toEqual(
      new Set(['d', 'c', 'x']),
    );
  });

  it('finds the selected node only when it is drawn', () => {
    const scene = buildScene(GRAPH, EMPTY_SCENE);
    expect(selectedIndex(scene, { ...NO_EMPHASIS, selectedId: 'c' })).toBe(2);
    expect(selectedIndex(scene, { ...NO_EMPHASIS, selectedId: 'zz' })).toBeUndefined();
  });
});
