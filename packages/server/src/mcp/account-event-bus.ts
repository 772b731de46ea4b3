import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { EventBus } from '../realtime/event-bus.js';
import { GRAPH_RESOURCE_URI } from './memory-server.js';

type Listener = (event: ServerEvent) => void;

/**
 * The SDK's `ServerEventBus` for one space's 2026-era listens (`/mcp` or
 * `/mcp/<slug>`), backed by Engram's event bus (in-process, or Redis across
 * nodes), which carries the account's events: those of other spaces are
 * passed over.
 *
 * The SDK's bus is keyed by resource URI only, and every account's graph is
 * `memory://knowledge-graph`: so each account gets its own bus (and its own
 * `createMcpHandler`), and a listener subscribes to Engram's bus for that
 * account alone. A committed change anywhere — REST, MCP, the web app, any
 * node — reaches the listeners of the account it belongs to as one
 * `resource_updated` per batch, and never another account's listeners.
 *
 * `publish` (the handler's `notify` sugar) delivers to this node's listeners
 * of the account only. Engram never calls it: changes already cross nodes as
 * graph events on Engram's bus, which is what every listener hears.
 */
export class AccountEventBus implements ServerEventBus {
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly bus: EventBus,
    private readonly accountId: string,
    private readonly spaceId: string,
  ) {}

  publish(event: ServerEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        /* the listener's own concern */
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    // A batch commits many events at once: tell the listener once per batch.
    let queued = false;
    let live = true;
    const stopBus = this.bus.subscribe(this.accountId, (event) => {
      if (queued || event.spaceId !== this.spaceId) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        if (live) listener({ kind: 'resource_updated', uri: GRAPH_RESOURCE_URI });
      });
    });
    return () => {
      if (!live) return;
      live = false;
      this.listeners.delete(listener);
      stopBus();
    };
  }

  /** Listens open on this node for the account. */
  get listenerCount(): number {
    return this.listeners.size;
  }
}
