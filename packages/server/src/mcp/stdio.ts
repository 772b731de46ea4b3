import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import {
  serveStdio as serveBothEras,
  StdioServerTransport,
} from '@modelcontextprotocol/server/stdio';
import type { Runtime } from '../runtime.js';
import type { SpaceAuth } from '../lib/auth-context.js';
import { createMemoryServer, memoryServicesOf } from './memory-server.js';

/**
 * The stdio transport, telling us when a message arrives and when the
 * connection ends. The SDK's `serveStdio` owns the transport it is given (it
 * sets the callbacks), so this wrapper forwards them, calling `received`
 * before the SDK's `onmessage` and `ended` after its `onclose`.
 */
export class ObservedTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  constructor(
    private readonly inner: Transport,
    ended: () => void,
    received: () => void = () => {},
  ) {
    inner.onmessage = (message) => {
      received();
      this.onmessage?.(message);
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.onclose?.();
      ended();
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Serves the memory tools over stdin/stdout for a desktop agent, acting for
 * the account of `auth`, in whichever protocol era the client opens with:
 * a 2025-era `initialize` pins a connection that answers
 * `resources/subscribe`; a 2026-07-28 opening pins one whose
 * `subscriptions/listen` streams hear every change to the account's graph.
 * Resolves when the client disconnects.
 */
export async function serveStdio(
  runtime: Runtime,
  auth: SpaceAuth,
  options: { stdin?: Readable; stdout?: Writable; webDistDir?: string | undefined } = {},
): Promise<void> {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const transport = new ObservedTransport(
    new StdioServerTransport(options.stdin, options.stdout),
    () => ended(),
    () => runtime.noteRequest(),
  );
  serveBothEras(
    ({ era }) =>
      createMemoryServer({
        ...memoryServicesOf(runtime),
        auth,
        updates: era === 'modern' ? 'push' : 'subscribe',
        webDistDir: options.webDistDir,
      }),
    { transport },
  );
  await closed;
}
