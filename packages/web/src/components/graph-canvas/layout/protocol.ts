import type { LayoutLinkInput, LayoutNodeInput } from './layout-engine';

/** Messages between the canvas (main thread) and the layout worker. */

export type ToLayout =
  | {
      kind: 'load';
      /** Names this node list; later messages and answers carry it, stale answers are dropped. */
      version: number;
      nodes: LayoutNodeInput[];
      links: LayoutLinkInput[];
      pinnedId: string | null;
      /** False under prefers-reduced-motion: settle at once, post only the final layout. */
      animate: boolean;
    }
  | { kind: 'drag'; version: number; index: number; x: number; y: number }
  | { kind: 'release'; version: number; index: number };

export interface LayoutFrame {
  kind: 'positions';
  version: number;
  /** x0, y0, x1, y1, … in the order of the load. */
  positions: Float32Array;
  settled: boolean;
  /** Ticks run since the load. */
  ticks: number;
}

/** What the scene needs of the layout worker: a real Worker, or the in-process stand-in of tests. */
export interface LayoutPort {
  postMessage(message: ToLayout): void;
  onmessage: ((event: MessageEvent<LayoutFrame>) => void) | null;
  terminate(): void;
}
