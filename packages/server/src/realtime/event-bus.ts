import type { ChangeEvent } from '../lib/change-event.js';
import type { RevocableRef } from '../lib/auth-context.js';

export type ChangeListener = (event: ChangeEvent) => void;

/** A credential that was revoked or whose expiry moved: whatever holds it checks it again. */
export type CredentialChange = RevocableRef;
export type CredentialChangeListener = (changes: CredentialChange[]) => void;

/**
 * Carries committed graph changes to whoever listens for an account (realtime
 * sockets, MCP resource subscribers), and credential changes to every node
 * holding sockets or MCP sessions. One node uses the in-process bus.
 */
export interface EventBus {
  publish(events: ChangeEvent[]): void;
  /** Returns the function that stops listening. */
  subscribe(accountId: string, listener: ChangeListener): () => void;
  credentialsChanged(changes: CredentialChange[]): void;
  onCredentialsChanged(listener: CredentialChangeListener): () => void;
  close(): Promise<void>;
}

/** Calls each listener; one failing listener must not stop delivery to the others. */
function notifyAll<T>(listeners: Iterable<(value: T) => void>, value: T): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch {
      /* the listener's own concern */
    }
  }
}

export class LocalEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private readonly credentialListeners = new Set<CredentialChangeListener>();

  publish(events: ChangeEvent[]): void {
    for (const event of events) notifyAll(this.listeners.get(event.accountId) ?? [], event);
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

  credentialsChanged(changes: CredentialChange[]): void {
    if (changes.length > 0) notifyAll(this.credentialListeners, changes);
  }

  onCredentialsChanged(listener: CredentialChangeListener): () => void {
    this.credentialListeners.add(listener);
    return () => this.credentialListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.credentialListeners.clear();
  }
}
