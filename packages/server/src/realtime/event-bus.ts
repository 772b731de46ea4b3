import type { ChangeEvent } from '../features/graph/graph.service.js';

export type ChangeListener = (event: ChangeEvent) => void;

/**
 * Carries committed graph changes to whoever listens for an account: realtime
 * sockets, MCP resource subscribers. One node uses the in-process bus.
 */
export interface EventBus {
  publish(events: ChangeEvent[]): void;
  /** Returns the function that stops listening. */
  subscribe(accountId: string, listener: ChangeListener): () => void;
  close(): Promise<void>;
}

export class LocalEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  publish(events: ChangeEvent[]): void {
    for (const event of events) {
      for (const listener of this.listeners.get(event.accountId) ?? []) {
        // One failing listener must not stop delivery to the others.
        try {
          listener(event);
        } catch {
          /* the listener's own concern */
        }
      }
    }
  }

  subscribe(accountId: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(accountId);
    if (!set) {
      set = new Set();
      this.listeners.set(accountId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(accountId);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
