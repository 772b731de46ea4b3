import { describe, expect, it } from 'vitest';
import {
  LABEL_HEIGHT,
  LABEL_MARGIN,
  placeLabels,
  type LabelCandidate,
  type PlacedLabel,
} from './label-placement';

const overlaps = (a: PlacedLabel, b: PlacedLabel) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

function noTwoOverlap(labels: PlacedLabel[]) {
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      expect(overlaps(labels[i]!, labels[j]!), `${i} and ${j}`).toBe(false);
    }
  }
}

/** A grid of nodes `gap` px apart on a 600 × 400 view. */
function lattice(gap: number): LabelCandidate[] {
  const candidates: LabelCandidate[] = [];
  for (let y = gap / 2; y < 400; y += gap) {
    for (let x = gap / 2; x < 600; x += gap) {
      candidates.push({ index: candidates.length, cx: x, cy: y, r: 4, width: 70 });
    }
  }
  return candidates;
}

describe('placeLabels', () => {
  it('puts a lone label centred under its node', () => {
    const [label] = placeLabels([{ index: 0, cx: 100, cy: 100, r: 8, width: 60 }], 600, 400);
    expect(label).toEqual({ index: 0, x: 70, y: 111, width: 60, height: LABEL_HEIGHT });
  });

  it('never lets two labels overlap, however dense the nodes', () => {
    const dense = placeLabels(lattice(12), 600, 400);
    expect(dense.length).toBeGreaterThan(0);
    expect(dense.length).toBeLessThan(lattice(12).length);
    noTwoOverlap(dense);
  });

  it('fits more labels when the nodes are further apart (zoomed in)', () => {
    const near = placeLabels(lattice(20), 600, 400).length;
    const far = placeLabels(
      lattice(20).map((c) => ({ ...c, cx: c.cx * 2, cy: c.cy * 2 })),
      1200,
      800,
    ).length;
    expect(far).toBeGreaterThan(near);
  });

  it('gives room to the first candidates: the important labels win', () => {
    // Three nodes on one spot: the labels go below, above and beside it, in the order offered.
    const spot = (index: number) => ({ index, cx: 300, cy: 200, r: 4, width: 300 });
    expect(placeLabels([spot(1), spot(2), spot(3)], 600, 400).map((l) => l.index)).toEqual([1, 2]);
    expect(placeLabels([spot(3), spot(2), spot(1)], 600, 400).map((l) => l.index)).toEqual([3, 2]);
  });

  it('tries above, right and left when below is taken', () => {
    const labels = placeLabels(
      [
        { index: 0, cx: 100, cy: 80, r: 6, width: 60 },
        { index: 1, cx: 100, cy: 100, r: 6, width: 60 },
      ],
      600,
      400,
    );
    expect(labels).toHaveLength(2);
    noTwoOverlap(labels);
  });

  it('keeps labels inside the view, moving them sideways at the edge', () => {
    const [label] = placeLabels([{ index: 0, cx: 590, cy: 20, r: 4, width: 80 }], 600, 400);
    expect(label!.x + label!.width).toBeLessThanOrEqual(600);
    expect(placeLabels([{ index: 0, cx: 700, cy: 20, r: 4, width: 80 }], 600, 400)).toEqual([]);
  });

  it('keeps off obstacles, except for a required label', () => {
    const obstacle = { x: 0, y: 0, width: 600, height: 400 };
    const candidate = { index: 0, cx: 100, cy: 100, r: 4, width: 40 };
    expect(placeLabels([candidate], 600, 400, [obstacle])).toEqual([]);
    expect(placeLabels([{ ...candidate, required: true }], 600, 400, [obstacle])).toHaveLength(1);
  });

  it('keeps a margin between neighbouring labels', () => {
    const labels = placeLabels(lattice(30), 600, 400);
    for (const a of labels) {
      for (const b of labels) {
        if (a === b) continue;
        const apartX = Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width));
        const apartY = Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height));
        expect(Math.max(apartX, apartY)).toBeGreaterThanOrEqual(LABEL_MARGIN);
      }
    }
  });
});
