import { LayoutRunner } from './layout-runner';
import type { LayoutFrame, LayoutPort, ToLayout } from './protocol';

/**
 * The layout worker's code run on the calling thread, for component tests
 * (jsdom has no Web Worker). Answers arrive asynchronously, as from a worker.
 */
export class InProcessLayoutWorker implements LayoutPort {
  onmessage: ((event: MessageEvent<LayoutFrame>) => void) | null = null;
  private readonly runner = new LayoutRunner((frame) => {
    setTimeout(() => this.onmessage?.({ data: frame } as MessageEvent<LayoutFrame>), 0);
  });

  postMessage(message: ToLayout): void {
    this.runner.handle(message);
  }

  terminate(): void {
    this.runner.stop();
    this.onmessage = null;
  }
}
