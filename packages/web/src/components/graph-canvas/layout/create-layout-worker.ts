/** Starts the layout worker (Vite bundles layout.worker.ts as a module worker). */
export function createLayoutWorker(): Worker {
  return new Worker(new URL('./layout.worker.ts', import.meta.url), {
    type: 'module',
    name: 'graph-layout',
  });
}
