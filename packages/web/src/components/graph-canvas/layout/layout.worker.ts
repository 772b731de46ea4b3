import { LayoutRunner } from './layout-runner';
import type { LayoutFrame, ToLayout } from './protocol';

/** The graph layout off the main thread: the page never freezes while it settles. */
interface WorkerScope {
  postMessage(message: LayoutFrame, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToLayout>) => void) | null;
}

const scope = self as unknown as WorkerScope;

const runner = new LayoutRunner((frame) => {
  scope.postMessage(frame, [frame.positions.buffer]);
});

scope.onmessage = (event) => runner.handle(event.data);
