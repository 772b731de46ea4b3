import type { ZoomTransform } from 'd3-zoom';
import type { Box } from './label-placement';
import type { Emphasis, SceneGraph } from './scene-model';

/*
 * Everything one frame is drawn from: the model, what is emphasised, the
 * view, and the theme's colours. The renderer is a function of it.
 */

export interface Palette {
  edge: string;
  label: string;
  halo: string;
  ring: string;
  focus: string;
}

/** The theme's colours (CSS custom properties), read again when the colour scheme changes. */
export function readPalette(element: Element): Palette {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    edge: read('--muted-foreground', '#71717a'),
    label: read('--foreground', '#09090b'),
    halo: read('--card', '#ffffff'),
    ring: read('--primary', '#7c3aed'),
    focus: read('--ring', '#8b5cf6'),
  };
}

/** Centred text in `fill`, stroked first with a halo of the card's colour so it reads over edges. */
export function haloText(
  context: CanvasRenderingContext2D,
  palette: Palette,
  fill: string,
  baseline: CanvasTextBaseline,
): void {
  context.textAlign = 'center';
  context.textBaseline = baseline;
  context.lineJoin = 'round';
  context.lineWidth = 3;
  context.strokeStyle = palette.halo;
  context.fillStyle = fill;
}

export interface SceneFrame {
  scene: SceneGraph;
  emphasis: Emphasis;
  transform: ZoomTransform;
  /** The canvas in CSS pixels, and device pixels per CSS pixel. */
  width: number;
  height: number;
  dpr: number;
  palette: Palette;
  /** Where controls lie over the canvas (CSS px): no label is drawn under them. */
  overlay: Box | null;
}
