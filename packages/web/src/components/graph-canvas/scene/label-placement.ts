/*
 * Which node labels fit on screen: labels are offered most important first and
 * each one is kept only where it overlaps no label kept before it (and covers
 * no large node nor the zoom buttons). Everything is in screen (CSS) pixels,
 * so zooming in spreads the nodes apart and leaves room for more labels, and a
 * phone shows fewer than a desktop. A uniform grid of buckets keeps each test
 * to the few boxes nearby.
 */

export interface LabelCandidate {
  /** The node's index in the scene. */
  index: number;
  /** The node's centre and radius on screen. */
  cx: number;
  cy: number;
  r: number;
  /** The text's width on screen. */
  width: number;
  /** Shown even if it has to cover an obstacle (the hovered or selected node's label). */
  required?: boolean;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A label's text box on screen (x, y: its top-left corner). */
export interface PlacedLabel extends Box {
  index: number;
}

/** Height of a label's box: an 11 px line with its halo. */
export const LABEL_HEIGHT = 14;
/** Distance between a node's edge and its label. */
export const LABEL_GAP = 3;
/** Free space kept between two labels. */
export const LABEL_MARGIN = 2;
const CELL = 48;

/** The boxes placed so far, bucketed by grid cell. */
export class BoxGrid {
  private readonly cells = new Map<number, Box[]>();
  private readonly columns: number;

  constructor(width: number) {
    this.columns = Math.max(1, Math.ceil(width / CELL) + 2);
  }

  private key(column: number, row: number): number {
    return row * this.columns + column;
  }

  private span(box: Box): [number, number, number, number] {
    return [
      Math.floor((box.x - LABEL_MARGIN) / CELL),
      Math.floor((box.x + box.width + LABEL_MARGIN) / CELL),
      Math.floor((box.y - LABEL_MARGIN) / CELL),
      Math.floor((box.y + box.height + LABEL_MARGIN) / CELL),
    ];
  }

  /** True if `box`, with the margin around it, touches no box already added. */
  fits(box: Box): boolean {
    const [c0, c1, r0, r1] = this.span(box);
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) {
        const bucket = this.cells.get(this.key(column, row));
        if (!bucket) continue;
        for (const other of bucket) {
          if (
            box.x < other.x + other.width + LABEL_MARGIN &&
            other.x < box.x + box.width + LABEL_MARGIN &&
            box.y < other.y + other.height + LABEL_MARGIN &&
            other.y < box.y + box.height + LABEL_MARGIN
          )
            return false;
        }
      }
    }
    return true;
  }

  add(box: Box): void {
    const [c0, c1, r0, r1] = this.span(box);
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) {
        const key = this.key(column, row);
        const bucket = this.cells.get(key);
        if (bucket) bucket.push(box);
        else this.cells.set(key, [box]);
      }
    }
  }
}

/**
 * Places labels greedily in the order given (most important first) inside a
 * `width` × `height` view: under the node, else above, right or left of it,
 * moved sideways to stay inside the view. A label with no free place is left
 * out; a required one may cover `obstacles`, never another label.
 */
export function placeLabels(
  candidates: Iterable<LabelCandidate>,
  width: number,
  height: number,
  obstacles: readonly Box[] = [],
): PlacedLabel[] {
  const labels = new BoxGrid(width);
  const blocked = new BoxGrid(width);
  for (const obstacle of obstacles) blocked.add(obstacle);
  const placed: PlacedLabel[] = [];
  for (const candidate of candidates) {
    const spots = spotsFor(candidate, width, height);
    let box = spots.find((spot) => labels.fits(spot) && blocked.fits(spot));
    if (!box && candidate.required) box = spots.find((spot) => labels.fits(spot));
    if (!box) continue;
    labels.add(box);
    placed.push(box);
  }
  return placed;
}

/** Where a candidate's label may go, best first, each inside the view. */
function spotsFor(
  { index, cx, cy, r, width: textWidth }: LabelCandidate,
  width: number,
  height: number,
): PlacedLabel[] {
  if (cx < 0 || cx > width || cy < 0 || cy > height) return [];
  const boxWidth = Math.min(textWidth, width);
  const inside = (x: number) => Math.min(Math.max(x, 0), width - boxWidth);
  const centredX = inside(cx - boxWidth / 2);
  const middleY = cy - LABEL_HEIGHT / 2;
  const spots: [number, number][] = [
    [centredX, cy + r + LABEL_GAP],
    [centredX, cy - r - LABEL_GAP - LABEL_HEIGHT],
    [cx + r + LABEL_GAP, middleY],
    [cx - r - LABEL_GAP - boxWidth, middleY],
  ];
  return spots
    .filter(([x, y]) => x >= 0 && x + boxWidth <= width && y >= 0 && y + LABEL_HEIGHT <= height)
    .map(([x, y]) => ({ index, x, y, width: boxWidth, height: LABEL_HEIGHT }));
}
