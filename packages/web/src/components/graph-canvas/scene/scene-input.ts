/*
 * The canvas's pointer and keyboard: a press on a node drags it (or, if it
 * hardly moved, clicks it), a press on the background is left to d3-zoom's
 * pan (or, if it hardly moved, clicks the background), hovering lights a
 * node, and the keys move focus between nodes, open one and zoom. What each
 * gesture does to the scene is the InputTarget's; this module only tells
 * gestures apart.
 */

/** What input asks of the scene. Nodes are indices; points are client (viewport) coordinates. */
export interface InputTarget {
  /** The topmost node under a client point, or -1. */
  nodeAt(clientX: number, clientY: number): number;
  nodeCount(): number;
  /** The keyboard-focused node, or -1. */
  focused(): number;
  hover(index: number): void;
  focus(index: number): void;
  dragTo(index: number, clientX: number, clientY: number): void;
  release(index: number): void;
  activate(index: number): void;
  backgroundClick(): void;
  zoomBy(factor: number): void;
  resetZoom(): void;
}

/** A press that moves less than this (CSS px) is a click, not a drag. */
const CLICK_SLOP = 4;
/** One press of + or − zooms by this factor (the zoom buttons too). */
export const ZOOM_STEP = 1.3;

interface Press {
  pointerId: number;
  index: number;
  startX: number;
  startY: number;
  dragging: boolean;
}

export class SceneInput {
  private press: Press | null = null;
  private backgroundPress: { x: number; y: number } | null = null;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly target: InputTarget,
  ) {
    this.listen('pointerdown', (event) => this.pointerDown(event as PointerEvent));
    this.listen('pointermove', (event) => this.pointerMove(event as PointerEvent));
    this.listen('pointerup', (event) => this.pointerUp(event as PointerEvent));
    this.listen('pointercancel', (event) => this.pointerUp(event as PointerEvent));
    this.listen('pointerleave', () => this.hover(-1));
    this.listen('keydown', (event) => this.keyDown(event as KeyboardEvent));
    this.listen('blur', () => this.target.focus(-1));
  }

  destroy(): void {
    for (const cleanup of this.cleanups) cleanup();
  }

  /** The node being dragged, or -1: layout frames leave it where the pointer holds it. */
  get dragged(): number {
    return this.press?.dragging ? this.press.index : -1;
  }

  /** Forgets a press: new data may have moved its node to another index. */
  forgetPress(): void {
    this.press = null;
  }

  /** d3-zoom's filter: it pans from the background only, since a press on a node drags the node. */
  zoomAccepts(event: Event): boolean {
    if (event.type === 'wheel') return true;
    const mouse = event as MouseEvent;
    if (mouse.ctrlKey || mouse.button) return false;
    if (event.type === 'mousedown' || event.type === 'dblclick') {
      return this.target.nodeAt(mouse.clientX, mouse.clientY) < 0;
    }
    if (event.type === 'touchstart') {
      const touches = (event as TouchEvent).touches;
      const first = touches[0];
      return touches.length > 1 || !first || this.target.nodeAt(first.clientX, first.clientY) < 0;
    }
    return true;
  }

  private listen(type: string, handler: (event: Event) => void): void {
    this.canvas.addEventListener(type, handler);
    this.cleanups.push(() => this.canvas.removeEventListener(type, handler));
  }

  private hover(index: number): void {
    if (this.press?.dragging) return;
    this.canvas.style.cursor = index >= 0 ? 'pointer' : 'grab';
    this.target.hover(index);
  }

  private pointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    const index = this.target.nodeAt(event.clientX, event.clientY);
    if (index < 0) {
      this.backgroundPress = { x: event.clientX, y: event.clientY };
      return;
    }
    this.backgroundPress = null;
    this.press = {
      pointerId: event.pointerId,
      index,
      startX: event.clientX,
      startY: event.clientY,
      dragging: false,
    };
    this.canvas.setPointerCapture?.(event.pointerId);
  }

  private pointerMove(event: PointerEvent): void {
    const press = this.press;
    if (!press || press.pointerId !== event.pointerId) {
      if (event.buttons === 0 || event.pointerType === 'mouse') {
        this.hover(this.target.nodeAt(event.clientX, event.clientY));
      }
      return;
    }
    if (
      !press.dragging &&
      Math.hypot(event.clientX - press.startX, event.clientY - press.startY) < CLICK_SLOP
    )
      return;
    press.dragging = true;
    this.target.dragTo(press.index, event.clientX, event.clientY);
  }

  private pointerUp(event: PointerEvent): void {
    const press = this.press;
    if (press && press.pointerId === event.pointerId) {
      this.press = null;
      this.canvas.releasePointerCapture?.(press.pointerId);
      if (press.dragging) this.target.release(press.index);
      else if (event.type === 'pointerup') this.target.activate(press.index);
      return;
    }
    const background = this.backgroundPress;
    this.backgroundPress = null;
    if (
      background &&
      event.type === 'pointerup' &&
      Math.hypot(event.clientX - background.x, event.clientY - background.y) < CLICK_SLOP
    ) {
      this.target.backgroundClick();
    }
  }

  private keyDown(event: KeyboardEvent): void {
    const count = this.target.nodeCount();
    const focused = this.target.focused();
    switch (event.key) {
      case 'ArrowRight':
      case 'ArrowDown':
        if (count === 0) return;
        this.target.focus((focused + 1) % count);
        break;
      case 'ArrowLeft':
      case 'ArrowUp':
        if (count === 0) return;
        this.target.focus((focused - 1 + count) % count);
        break;
      case 'Enter':
      case ' ':
        if (focused < 0 || focused >= count) return;
        this.target.activate(focused);
        break;
      case 'Escape':
        if (focused < 0) return;
        this.target.focus(-1);
        break;
      case '+':
      case '=':
        this.target.zoomBy(ZOOM_STEP);
        break;
      case '-':
        this.target.zoomBy(1 / ZOOM_STEP);
        break;
      case '0':
        this.target.resetZoom();
        break;
      default:
        return;
    }
    event.preventDefault();
  }
}
