import { select } from 'd3-selection';
import {
  zoom,
  zoomIdentity,
  type D3ZoomEvent,
  type ZoomBehavior,
  type ZoomTransform,
} from 'd3-zoom';
import { ZOOM_MAX, ZOOM_MIN } from '../graph-view';
import type { SceneNode } from './scene-model';

/*
 * Which part of the world the canvas shows: its size in CSS and device
 * pixels, and the zoom and pan, kept by d3-zoom (wheel, drag, pinch) so every
 * gesture and every programmatic move starts from the same transform. Until
 * the person zooms or pans, the view follows the layout (autoFit) so the
 * whole graph stays in sight while it settles.
 */

/** Most a fitted view zooms in: small graphs should not fill the canvas with giant nodes. */
const FIT_ZOOM_MAX = 1.5;
const FIT_PADDING = 28;
/** Room kept under the lowest node for its label when fitting. */
const FIT_LABEL_ROOM = 16;

export interface ViewportHooks {
  /** Whether d3-zoom may take this event (the input decides: a press on a node drags it instead). */
  accepts(event: Event): boolean;
  /** The transform changed: redraw. */
  changed(): void;
}

export class SceneViewport {
  /** CSS pixels. */
  width = 0;
  height: number;
  /** Device pixels per CSS pixel, at most 2 (sharper costs more than it shows). */
  dpr = 1;
  transform: ZoomTransform = zoomIdentity;
  /** While true, the view follows the layout so the whole graph stays in sight. */
  autoFit = true;
  private readonly behavior: ZoomBehavior<HTMLCanvasElement, unknown>;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    height: number,
    hooks: ViewportHooks,
  ) {
    this.height = height;
    this.behavior = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([ZOOM_MIN, ZOOM_MAX])
      .filter((event: Event) => hooks.accepts(event))
      .on('start', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        // A person zooming or panning takes over the view from the automatic fit.
        if (event.sourceEvent) this.autoFit = false;
      })
      .on('zoom', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        this.transform = event.transform;
        hooks.changed();
      });
    select(this.canvas).call(this.behavior);
  }

  destroy(): void {
    select(this.canvas).on('.zoom', null);
  }

  /** Sizes the canvas's pixels to its CSS width and `height`; false when nothing changed. */
  resize(): boolean {
    const width = this.canvas.clientWidth;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    if (
      width === this.width &&
      dpr === this.dpr &&
      this.canvas.height === Math.round(this.height * dpr)
    )
      return false;
    this.width = width;
    this.dpr = dpr;
    this.canvas.width = Math.max(1, Math.round(width * dpr));
    this.canvas.height = Math.max(1, Math.round(this.height * dpr));
    return true;
  }

  /** Fits the placed `nodes` (or the centre, before any are placed) into the canvas. */
  fit(nodes: readonly SceneNode[]): void {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const node of nodes) {
      if (!node.placed) continue;
      minX = Math.min(minX, node.x - node.radius);
      maxX = Math.max(maxX, node.x + node.radius);
      minY = Math.min(minY, node.y - node.radius);
      maxY = Math.max(maxY, node.y + node.radius + FIT_LABEL_ROOM);
    }
    const { width, height } = this;
    let target: ZoomTransform;
    if (minX === Infinity || width === 0) {
      target = zoomIdentity.translate(width / 2, height / 2);
    } else {
      const spanX = Math.max(maxX - minX, 1);
      const spanY = Math.max(maxY - minY, 1);
      // Labels near the sides are moved inside the canvas when drawn: no room kept for them here.
      const k = Math.min(
        FIT_ZOOM_MAX,
        Math.max(
          ZOOM_MIN,
          Math.min((width - 2 * FIT_PADDING) / spanX, (height - 2 * FIT_PADDING) / spanY),
        ),
      );
      target = zoomIdentity
        .translate(width / 2, height / 2)
        .scale(k)
        .translate(-(minX + maxX) / 2, -(minY + maxY) / 2);
    }
    // Through d3-zoom, so the next wheel or pan starts from here.
    this.behavior.transform(select(this.canvas), target);
  }

  zoomBy(factor: number): void {
    this.autoFit = false;
    this.behavior.scaleBy(select(this.canvas), factor);
  }

  /** Pans world point (x, y) to the centre when it is outside the view (a node focused by keyboard). */
  bringIntoView(x: number, y: number): void {
    const [sx, sy] = this.transform.apply([x, y]);
    if (sx >= 0 && sy >= 0 && sx <= this.width && sy <= this.height) return;
    this.autoFit = false;
    this.behavior.translateTo(select(this.canvas), x, y);
  }

  /** A client (viewport) point as canvas CSS pixels. */
  local(clientX: number, clientY: number): [number, number] {
    const rect = this.canvas.getBoundingClientRect();
    return [clientX - rect.left, clientY - rect.top];
  }

  /** A client point as world coordinates. */
  toWorld(clientX: number, clientY: number): [number, number] {
    return this.transform.invert(this.local(clientX, clientY));
  }
}
