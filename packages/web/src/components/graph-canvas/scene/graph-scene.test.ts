import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GraphView } from '../graph-view';
import { InProcessLayoutWorker } from '../layout/in-process-worker';
import { installGraphProbe, type GraphProbe, type ProbedCanvas } from './graph-probe';
import { GraphScene, type LayoutState } from './graph-scene';

/*
 * The scene with its renderer on a stand-in 2D context (jsdom draws nothing):
 * a load is laid out, fitted and drawn with its labels, and the probe of
 * e2e and bench/graph-ui reports it. The component tests leave the context
 * out; this one is where a frame is drawn.
 */

/** Path2D and the 2D context, as far as the renderer uses them: calls are counted, text is 6 px a character. */
class FakePath {
  moveTo() {}
  lineTo() {}
  arc() {}
  closePath() {}
}

function fakeContext(canvas: HTMLCanvasElement) {
  const calls = { fillText: 0, stroke: 0, fill: 0 };
  const context = {
    canvas,
    setTransform: () => undefined,
    clearRect: () => undefined,
    beginPath: () => undefined,
    arc: () => undefined,
    stroke: () => calls.stroke++,
    fill: () => calls.fill++,
    strokeText: () => undefined,
    fillText: () => calls.fillText++,
    measureText: (text: string) => ({ width: text.length * 6 }),
  };
  return { context: context as unknown as CanvasRenderingContext2D, calls };
}

const GRAPH: GraphView = {
  nodes: ['Ada', 'Babbage', 'Engine'].map((name, i) => ({
    id: `n${i}`,
    name,
    type: 'person',
    observationsCount: i,
  })),
  edges: [
    { id: 'e1', source: 'n0', target: 'n1', relationType: 'knows' },
    { id: 'e2', source: 'n1', target: 'n2', relationType: 'built' },
  ],
};

let canvas: HTMLCanvasElement;
let calls: ReturnType<typeof fakeContext>['calls'];

beforeEach(() => {
  vi.stubGlobal('Path2D', FakePath);
  canvas = document.createElement('canvas');
  Object.defineProperty(canvas, 'clientWidth', { value: 600 });
  document.body.append(canvas);
  const fake = fakeContext(canvas);
  calls = fake.calls;
  vi.spyOn(canvas, 'getContext').mockReturnValue(fake.context as never);
});

afterEach(() => canvas.remove());

function sceneOn(onLayoutState?: (state: LayoutState) => void) {
  return new GraphScene({
    canvas,
    height: 400,
    worker: new InProcessLayoutWorker(),
    reducedMotion: true,
    onLayoutState,
  });
}

describe('GraphScene', () => {
  it('lays out, fits and draws a load with its labels; the probe reports it', async () => {
    const states: LayoutState[] = [];
    const scene = sceneOn((state) => states.push(state));
    const remove = installGraphProbe(canvas, scene);
    const probe = (canvas as ProbedCanvas).graphProbe as GraphProbe;
    scene.setData(GRAPH, 'n0');
    expect(canvas.dataset).toMatchObject({ nodes: '3', edges: '2', layout: 'running' });

    await vi.waitFor(() => expect(canvas.dataset.layout).toBe('settled'));
    // Labels are measured in idle time; a frame with all three follows.
    await vi.waitFor(() => expect(probe.labels).toHaveLength(3));
    expect(states).toEqual(['running', 'settled']);
    expect(calls.fillText).toBeGreaterThanOrEqual(3);
    expect(canvas.width).toBe(600);

    expect(probe).toMatchObject({ nodeCount: 3, edgeCount: 2, layoutState: 'settled' });
    expect(probe.zoom).toBeGreaterThan(0);
    expect(probe.labels.map((label) => label.text).sort()).toEqual(['Ada', 'Babbage', 'Engine']);
    expect(probe.screenNodes()).toHaveLength(3);
    const pinned = probe.screenPositionOf('n0')!;
    // The pinned node is held at the centre, and the view is fitted around the graph.
    expect(pinned.x).toBeGreaterThan(0);
    expect(pinned.x).toBeLessThan(600);
    expect(probe.screenPositionOf('nobody')).toBeNull();
    const [layout] = probe.layouts;
    expect(layout).toMatchObject({ nodes: 3, frames: 1 });
    expect(layout!.settledAt).toBeGreaterThanOrEqual(layout!.receivedAt);
    expect(probe.drawTimes.length).toBeGreaterThan(0);

    remove();
    expect((canvas as ProbedCanvas).graphProbe).toBeUndefined();
    scene.destroy();
  });

  it('activates a node from the keyboard and follows focus', async () => {
    const activated: string[] = [];
    const focused: (string | null)[] = [];
    const scene = new GraphScene({
      canvas,
      height: 400,
      worker: new InProcessLayoutWorker(),
      reducedMotion: true,
      onNodeActivate: (node) => activated.push(node.id),
      onFocusNode: (node) => focused.push(node?.id ?? null),
    });
    scene.setData(GRAPH);
    await vi.waitFor(() => expect(canvas.dataset.layout).toBe('settled'));
    const key = (name: string) =>
      canvas.dispatchEvent(new KeyboardEvent('keydown', { key: name, cancelable: true }));
    key('ArrowRight');
    key('ArrowRight');
    expect(key('Enter')).toBe(false);
    expect(activated).toEqual(['n1']);
    key('Escape');
    expect(focused).toEqual(['n0', 'n1', null]);
    // Nothing focused: Enter is left to the page.
    expect(key('Enter')).toBe(true);
    scene.destroy();
  });
});
