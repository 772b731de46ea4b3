import { zoomIdentity } from 'd3-zoom';
import { describe, expect, it } from 'vitest';
import { drawEdgeLabels } from './scene-edge-labels';
import type { SceneFrame } from './scene-frame';
import { NO_EMPHASIS, type SceneEdge, type SceneGraph, type SceneNode } from './scene-model';

/** A 2D context as far as edge labels use it: text is 6 px a character, and what is written is kept. */
function fakeContext() {
  const written: string[] = [];
  const context = {
    measureText: (text: string) => ({ width: text.length * 6 }),
    strokeText: () => undefined,
    fillText: (text: string) => written.push(text),
  };
  return { context: context as unknown as CanvasRenderingContext2D, written };
}

const node = (id: string, x: number, y: number): SceneNode => ({
  id,
  name: id,
  type: 'person',
  observationsCount: 0,
  label: id,
  labelWidth: 0,
  color: '#000',
  radius: 8,
  x,
  y,
  placed: true,
});

// A far apart from B (room for a label); B close to C (none).
const nodes = [node('a', 0, 0), node('b', 300, 0), node('c', 320, 0)];
const edges: SceneEdge[] = [
  { id: 'e1', source: 'a', target: 'b', relationType: 'works_with', from: 0, to: 1 },
  { id: 'e2', source: 'b', target: 'c', relationType: 'depends_on', from: 1, to: 2 },
];

function frame(overrides: Partial<SceneFrame> = {}): SceneFrame {
  return {
    scene: { nodes, edges } as unknown as SceneGraph,
    emphasis: NO_EMPHASIS,
    transform: zoomIdentity,
    width: 800,
    height: 400,
    dpr: 1,
    palette: { edge: '#777', label: '#000', halo: '#fff', ring: '#70f', focus: '#80f' },
    overlay: null,
    ...overrides,
  };
}

describe('relation types on edges', () => {
  it('labels the edges that have room, and not one too short for its label', () => {
    const { context, written } = fakeContext();
    expect(drawEdgeLabels(context, frame(), edges, [])).toBe(1);
    expect(written).toEqual(['Works with']);
  });

  it('always labels the hovered node’s edges, and only those', () => {
    const { context, written } = fakeContext();
    drawEdgeLabels(context, frame({ emphasis: { ...NO_EMPHASIS, hover: 2 } }), edges, []);
    expect(written).toEqual(['Depends on']);
  });

  it('leaves out a label where a node label already is, and all of them far zoomed out', () => {
    const taken = { index: 0, x: 140, y: -10, width: 40, height: 20 };
    const { context, written } = fakeContext();
    expect(drawEdgeLabels(context, frame(), edges, [taken])).toBe(0);
    expect(written).toEqual([]);
    const zoomedOut = fakeContext();
    drawEdgeLabels(zoomedOut.context, frame({ transform: zoomIdentity.scale(0.5) }), edges, []);
    expect(zoomedOut.written).toEqual([]);
  });
});
