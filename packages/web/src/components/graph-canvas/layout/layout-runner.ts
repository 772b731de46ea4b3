import { LayoutEngine } from './layout-engine';
import type { LayoutFrame, ToLayout } from './protocol';

/** Ticks per frame while settling: fast enough to settle in about a second, still visibly moving. */
export const MAX_TICKS_PER_FRAME = 4;
/** Time one frame may spend ticking before it posts what it has. */
export const FRAME_BUDGET_MS = 12;
export const FRAME_MS = 16;

export interface RunnerClock {
  now(): number;
  later(run: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

const realClock: RunnerClock = {
  now: () => performance.now(),
  later: (run, ms) => setTimeout(run, ms),
  cancel: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Paces the layout engine: about one frame of ticks at a time, posting the
 * positions after each, until the layout settles. Without animation it
 * settles at once and posts only the result. Runs inside the Web Worker.
 */
export class LayoutRunner {
  private readonly engine = new LayoutEngine();
  private version = 0;
  private animate = true;
  private dragging = false;
  private pending: unknown = null;

  constructor(
    private readonly post: (frame: LayoutFrame) => void,
    private readonly clock: RunnerClock = realClock,
  ) {}

  handle(message: ToLayout): void {
    if (message.kind === 'load') {
      this.version = message.version;
      this.animate = message.animate;
      this.dragging = false;
      this.engine.load(message.nodes, message.links, { pinnedId: message.pinnedId });
      if (this.animate) {
        this.emit();
        this.schedule(0);
      } else {
        this.engine.settle();
        this.emit();
      }
      return;
    }
    if (message.version !== this.version) return;
    if (message.kind === 'drag') {
      this.dragging = true;
      this.engine.drag(message.index, message.x, message.y, this.animate);
      if (this.animate) this.schedule(0);
      else this.emit();
      return;
    }
    this.dragging = false;
    this.engine.release(message.index, !this.animate);
    if (this.animate) this.schedule(0);
    else this.emit();
  }

  stop(): void {
    if (this.pending !== null) this.clock.cancel(this.pending);
    this.pending = null;
  }

  private schedule(ms: number): void {
    if (this.pending !== null) return;
    this.pending = this.clock.later(() => {
      this.pending = null;
      this.frame();
    }, ms);
  }

  private frame(): void {
    const started = this.clock.now();
    // While dragging, one tick per frame: the layout follows the pointer at its natural pace.
    const maxTicks = this.dragging ? 1 : MAX_TICKS_PER_FRAME;
    let ticks = 0;
    while (
      !this.engine.settled &&
      ticks < maxTicks &&
      (ticks === 0 || this.clock.now() - started < FRAME_BUDGET_MS)
    ) {
      this.engine.tick();
      ticks++;
    }
    this.emit();
    if (!this.engine.settled) {
      this.schedule(Math.max(0, FRAME_MS - (this.clock.now() - started)));
    }
  }

  private emit(): void {
    const positions = this.engine.positions();
    this.post({
      kind: 'positions',
      version: this.version,
      positions,
      settled: this.engine.settled,
      ticks: this.engine.ticks,
    });
  }
}
