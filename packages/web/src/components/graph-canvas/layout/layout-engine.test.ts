import { describe, expect, it } from 'vitest';
import { ALPHA_FRESH, ALPHA_LINKS_CHANGED, ALPHA_NODES_ADDED, LayoutEngine } from './layout-engine';
import { LayoutRunner, type RunnerClock } from './layout-runner';
import type { LayoutFrame } from './protocol';

const nodes = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `n${i}`, radius: 8 }));
/** A chain n0 — n1 — … plus a few cross links. */
const chain = (count: number) => [
  ...Array.from({ length: count - 1 }, (_, i) => ({ source: `n${i}`, target: `n${i + 1}` })),
  { source: 'n0', target: `n${Math.floor(count / 2)}` },
];

function positionsById(engine: LayoutEngine, ids: string[]): Map<string, [number, number]> {
  const positions = engine.positions();
  return new Map(ids.map((id, i) => [id, [positions[2 * i]!, positions[2 * i + 1]!]]));
}

describe('LayoutEngine', () => {
  it('lays a fresh graph out from alpha 1 and settles', () => {
    const engine = new LayoutEngine();
    const result = engine.load(nodes(30), chain(30));
    expect(result).toEqual({ alpha: ALPHA_FRESH, kept: 0 });
    expect(engine.settled).toBe(false);
    engine.settle();
    expect(engine.settled).toBe(true);
    expect(engine.ticks).toBeGreaterThan(100);
    const positions = engine.positions();
    expect(positions).toHaveLength(60);
    expect([...positions].every(Number.isFinite)).toBe(true);
    // Linked nodes end up near each other, and no two nodes sit on top of each other.
    const byId = positionsById(
      engine,
      nodes(30).map((node) => node.id),
    );
    const [ax, ay] = byId.get('n3')!;
    const [bx, by] = byId.get('n4')!;
    expect(Math.hypot(ax - bx, ay - by)).toBeLessThan(120);
    for (let i = 0; i < 30; i++) {
      for (let j = i + 1; j < 30; j++) {
        const [x1, y1] = byId.get(`n${i}`)!;
        const [x2, y2] = byId.get(`n${j}`)!;
        expect(Math.hypot(x1 - x2, y1 - y2)).toBeGreaterThan(8);
      }
    }
  });

  it('keeps every position when a new relation arrives, warming with a low alpha', () => {
    const engine = new LayoutEngine();
    const ids = nodes(30).map((node) => node.id);
    engine.load(nodes(30), chain(30));
    engine.settle();
    const before = positionsById(engine, ids);

    const result = engine.load(nodes(30), [...chain(30), { source: 'n5', target: 'n25' }]);
    expect(result).toEqual({ alpha: ALPHA_LINKS_CHANGED, kept: 30 });
    // Right after the load, nothing has moved: the layout is not restarted from scratch.
    expect(positionsById(engine, ids)).toEqual(before);
    engine.settle();
    expect(engine.ticks).toBeLessThan(250);
  });

  it('places a new node beside its neighbour and keeps the others in place', () => {
    const engine = new LayoutEngine();
    const ids = nodes(20).map((node) => node.id);
    engine.load(nodes(20), chain(20));
    engine.settle();
    const before = positionsById(engine, ids);

    const result = engine.load(
      [...nodes(20), { id: 'new', radius: 10 }],
      [...chain(20), { source: 'n7', target: 'new' }],
    );
    expect(result).toEqual({ alpha: ALPHA_NODES_ADDED, kept: 20 });
    const after = positionsById(engine, [...ids, 'new']);
    for (const id of ids) expect(after.get(id)).toEqual(before.get(id));
    const [nx, ny] = after.get('new')!;
    const [ax, ay] = before.get('n7')!;
    expect(Math.hypot(nx - ax, ny - ay)).toBeLessThan(60);
  });

  it('does not move anything when the same graph comes again', () => {
    const engine = new LayoutEngine();
    engine.load(nodes(10), chain(10));
    engine.settle();
    expect(engine.load(nodes(10), chain(10))).toEqual({ alpha: 0, kept: 10 });
    expect(engine.settled).toBe(true);
  });

  it('holds the pinned node at the centre', () => {
    const engine = new LayoutEngine();
    engine.load(nodes(12), chain(12), { pinnedId: 'n4' });
    engine.settle();
    const at = positionsById(
      engine,
      nodes(12).map((node) => node.id),
    ).get('n4')!;
    expect(at).toEqual([0, 0]);
  });

  it('follows a drag and settles after the release', () => {
    const engine = new LayoutEngine();
    engine.load(nodes(10), chain(10));
    engine.settle();
    engine.drag(3, 500, -200, true);
    engine.tick(5);
    expect(engine.settled).toBe(false);
    let positions = engine.positions();
    expect([positions[6], positions[7]]).toEqual([500, -200]);
    engine.release(3, false);
    engine.settle();
    expect(engine.settled).toBe(true);
    positions = engine.positions();
    expect(positions[6]).not.toBe(500);
  });
});

/** A clock the test advances by hand. */
function manualClock() {
  let now = 0;
  const queue: { at: number; run: () => void }[] = [];
  const clock: RunnerClock = {
    now: () => now,
    later: (run, ms) => {
      const entry = { at: now + ms, run };
      queue.push(entry);
      return entry;
    },
    cancel: (handle) => {
      const index = queue.indexOf(handle as (typeof queue)[number]);
      if (index >= 0) queue.splice(index, 1);
    },
  };
  const runAll = (limit = 10_000) => {
    for (let i = 0; i < limit && queue.length > 0; i++) {
      queue.sort((a, b) => a.at - b.at);
      const next = queue.shift()!;
      now = Math.max(now, next.at);
      next.run();
    }
  };
  return { clock, runAll };
}

describe('LayoutRunner', () => {
  it('animates: posts frames of a few ticks each until settled', () => {
    const frames: LayoutFrame[] = [];
    const { clock, runAll } = manualClock();
    const runner = new LayoutRunner((frame) => frames.push(frame), clock);
    runner.handle({
      kind: 'load',
      version: 1,
      nodes: nodes(15),
      links: chain(15),
      pinnedId: null,
      animate: true,
    });
    runAll();
    expect(frames.length).toBeGreaterThan(20);
    expect(frames.at(-1)!.settled).toBe(true);
    expect(frames.slice(0, -1).every((frame) => !frame.settled)).toBe(true);
    expect(frames.every((frame) => frame.version === 1 && frame.positions.length === 30)).toBe(
      true,
    );
  });

  it('under reduced motion posts only the settled layout', () => {
    const frames: LayoutFrame[] = [];
    const { clock, runAll } = manualClock();
    const runner = new LayoutRunner((frame) => frames.push(frame), clock);
    runner.handle({
      kind: 'load',
      version: 1,
      nodes: nodes(15),
      links: chain(15),
      pinnedId: null,
      animate: false,
    });
    runAll();
    expect(frames).toHaveLength(1);
    expect(frames[0]!.settled).toBe(true);

    // A drag moves only the dragged node; after the release it stays where it was dropped.
    const before = frames[0]!.positions;
    runner.handle({ kind: 'drag', version: 1, index: 2, x: 300, y: 300 });
    runner.handle({ kind: 'release', version: 1, index: 2 });
    runAll();
    const after = frames.at(-1)!.positions;
    expect([after[4], after[5]]).toEqual([300, 300]);
    for (let i = 0; i < 15; i++) {
      if (i === 2) continue;
      expect([after[2 * i], after[2 * i + 1]]).toEqual([before[2 * i], before[2 * i + 1]]);
    }
    expect(frames.at(-1)!.settled).toBe(true);
  });

  it('ignores drags meant for an older load', () => {
    const frames: LayoutFrame[] = [];
    const { clock, runAll } = manualClock();
    const runner = new LayoutRunner((frame) => frames.push(frame), clock);
    runner.handle({
      kind: 'load',
      version: 2,
      nodes: nodes(5),
      links: chain(5),
      pinnedId: null,
      animate: false,
    });
    const count = frames.length;
    runner.handle({ kind: 'drag', version: 1, index: 0, x: 1, y: 1 });
    runAll();
    expect(frames).toHaveLength(count);
  });
});
