import LayoutWorker from '../../src/components/graph-canvas/layout/layout.worker.ts?worker&inline';
import { LayoutRunner } from '../../src/components/graph-canvas/layout/layout-runner';
import type {
  LayoutFrame,
  LayoutPort,
  ToLayout,
} from '../../src/components/graph-canvas/layout/protocol';

/** How long a worker may stay silent after a load before the layout moves to the main thread. */
const WORKER_SILENCE_MS = 1500;

/**
 * The web app's force layout (graph-canvas/layout), in a Web Worker where
 * the host's CSP and sandbox allow one, else on the main thread. The worker
 * is started with the view and proves itself on an empty layout; until it
 * has (or when it cannot start, fails, or falls silent), the same code runs
 * in-process.
 */
export class GraphLayout {
  /** Where the current layout runs. */
  mode: 'worker' | 'main thread' = 'main thread';
  private worker: LayoutPort | undefined;
  private readonly local: LayoutPort;
  private port: LayoutPort;
  /** True once the worker has answered: it runs here. */
  proven = false;
  private answered = false;
  private lastLoad: ToLayout | undefined;

  constructor(private readonly onFrame: (frame: LayoutFrame) => void) {
    // On the main thread the runner answers at once: a load's first positions
    // are drawn in the same task, before the browser paints.
    const runner = new LayoutRunner((frame) => {
      if (this.port === this.local) this.onFrame(frame);
    });
    this.local = {
      postMessage: (message) => runner.handle(message),
      onmessage: null,
      terminate: () => runner.stop(),
    };
    this.port = this.local;
    this.startWorker();
  }

  post(message: ToLayout): void {
    if (message.kind !== 'load') {
      this.port.postMessage(message);
      return;
    }
    // The first layout picks where the graph is laid out, for good (a node
    // keeps its place across loads only within one engine): a worker that
    // has not answered its empty layout by then is not waited for.
    if (this.lastLoad === undefined && this.proven && this.worker) this.port = this.worker;
    this.lastLoad = message;
    this.mode = this.port === this.local ? 'main thread' : 'worker';
    this.answered = false;
    this.port.postMessage(message);
    if (this.mode === 'worker') {
      setTimeout(() => {
        if (this.lastLoad === message && !this.answered) this.toMainThread();
      }, WORKER_SILENCE_MS);
    }
  }

  private startWorker(): void {
    try {
      const worker = new LayoutWorker({ name: 'graph-layout' });
      worker.onerror = () => this.toMainThread();
      worker.onmessage = (event: MessageEvent<LayoutFrame>) => {
        this.proven = true;
        if (this.port !== worker) return;
        this.answered = true;
        this.onFrame(event.data);
      };
      this.worker = worker;
      // An empty layout: the first answer says the worker runs.
      worker.postMessage({
        kind: 'load',
        version: 0,
        nodes: [],
        links: [],
        pinnedId: null,
        animate: false,
      });
    } catch {
      this.worker = undefined;
    }
  }

  private toMainThread(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.proven = false;
    if (this.port === this.local) return;
    this.port = this.local;
    this.mode = 'main thread';
    if (this.lastLoad) this.local.postMessage(this.lastLoad);
  }
}
