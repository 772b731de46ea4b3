import { typeLabel, type GraphEventType } from '@engram/shared';
import type { GraphEvent } from './messages';
import type { Timers } from './realtime-client';

/** At most the last 5 live notifications, each gone after 10 s (docs/product.md, Numbers). */
export const MAX_LIVE_NOTIFICATIONS = 5;
export const LIVE_NOTIFICATION_TTL_MS = 10_000;

export interface LiveNotification {
  /** Unique per notification (the event id, made unique if it repeats). */
  id: string;
  type: GraphEventType;
  /** One line, e.g. 'Entity "Alice" created'. */
  title: string;
  /** A second, quieter line when the event carries one (type, observation text). */
  detail?: string;
  /** When the server recorded the change (ISO 8601), if it said. */
  timestamp: string;
}

const QUOTE_LIMIT = 60;

function quoted(text: string): string {
  const short = text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT - 1).trimEnd()}…` : text;
  return `"${short}"`;
}

/** 'Entity "Alice" created', or 'Entity created' when the name is empty. */
function named(noun: string, name: string, verb: string): string {
  return name ? `${noun} ${quoted(name)} ${verb}` : `${noun} ${verb}`;
}

/** The words shown for an event (docs/product.md, States, says what each type carries). */
export function describeEvent(event: GraphEvent): { title: string; detail?: string } {
  switch (event.type) {
    case 'entity_created':
    case 'entity_updated':
    case 'entity_deleted': {
      const verb = event.type.slice('entity_'.length);
      return {
        title: named('Entity', event.payload.name, verb),
        detail: event.payload.type || undefined,
      };
    }
    case 'observation_added': {
      const texts = event.payload.observations.map((observation) => observation.content);
      const count = Math.max(texts.length, 1);
      return {
        title: count === 1 ? 'Observation added' : `${count} observations added`,
        detail: texts[0] === undefined ? undefined : quoted(texts[0]),
      };
    }
    case 'relation_created':
    case 'relation_updated':
    case 'relation_deleted': {
      const verb = event.type.slice('relation_'.length);
      // Shown as the relations table shows it: 'based_on' → 'Based on'.
      return { title: named('Relation', typeLabel(event.payload.relationType), verb) };
    }
    case 'entity_merged': {
      // 'Merged 2 entities into "Ada Lovelace"', and the names they had.
      const count = Math.max(event.payload.mergedIds.length, 1);
      const merged = `Merged ${count} ${count === 1 ? 'entity' : 'entities'}`;
      const names = event.payload.mergedNames.filter((name) => name !== '');
      return {
        title: event.payload.name ? `${merged} into ${quoted(event.payload.name)}` : merged,
        detail: names.length > 0 ? names.map(quoted).join(', ') : undefined,
      };
    }
  }
}

export interface NotificationQueueOptions {
  max?: number;
  ttlMs?: number;
  timers?: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
}

/**
 * The live notifications, newest first: at most `max`, each removed `ttlMs`
 * after it arrived, or earlier when dismissed or pushed out by newer ones.
 * Framework-free; React reads it through useSyncExternalStore.
 */
export class NotificationQueue {
  private items: readonly LiveNotification[] = [];
  private readonly expiry = new Map<string, unknown>();
  private readonly listeners = new Set<() => void>();
  private readonly max: number;
  private readonly ttlMs: number;
  private readonly timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
  private counter = 0;

  constructor({
    max = MAX_LIVE_NOTIFICATIONS,
    ttlMs = LIVE_NOTIFICATION_TTL_MS,
    timers,
  }: NotificationQueueOptions = {}) {
    this.max = max;
    this.ttlMs = ttlMs;
    this.timers = timers ?? {
      setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
      clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
  }

  getSnapshot = (): readonly LiveNotification[] => this.items;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Adds the notification for a graph event and returns it. */
  addEvent(event: GraphEvent): LiveNotification {
    this.counter += 1;
    const notification: LiveNotification = {
      ...describeEvent(event),
      id: `${event.id || 'event'}#${this.counter}`,
      type: event.type,
      timestamp: event.timestamp,
    };
    const kept = [notification, ...this.items];
    for (const dropped of kept.splice(this.max)) this.forget(dropped.id);
    this.items = kept;
    this.expiry.set(
      notification.id,
      this.timers.setTimeout(() => this.dismiss(notification.id), this.ttlMs),
    );
    this.publish();
    return notification;
  }

  dismiss(id: string): void {
    if (!this.items.some((item) => item.id === id)) return;
    this.forget(id);
    this.items = this.items.filter((item) => item.id !== id);
    this.publish();
  }

  clear(): void {
    for (const id of [...this.expiry.keys()]) this.forget(id);
    if (this.items.length === 0) return;
    this.items = [];
    this.publish();
  }

  private forget(id: string): void {
    const handle = this.expiry.get(id);
    if (handle !== undefined) this.timers.clearTimeout(handle);
    this.expiry.delete(id);
  }

  private publish(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
