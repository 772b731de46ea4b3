import { Redis } from 'ioredis';
import type { ChangeEvent } from '../lib/change-event.js';
import {
  LocalEventBus,
  type ChangeListener,
  type CredentialChange,
  type CredentialChangeListener,
  type EventBus,
} from './event-bus.js';

const GRAPH_CHANNEL = 'engram:graph-events';
const CREDENTIAL_CHANNEL = 'engram:credential-changes';

/**
 * Fans committed changes out across nodes: every node publishes to Redis and
 * delivers what it receives (its own messages included) to its local
 * listeners, so each event reaches each listener once.
 */
export class RedisEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  private constructor(
    url: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    this.subscriber = new Redis(url, { lazyConnect: true });
    this.publisher.on('error', onError);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string, message: string) => {
      try {
        if (channel === GRAPH_CHANNEL) this.local.publish(JSON.parse(message) as ChangeEvent[]);
        else this.local.credentialsChanged(JSON.parse(message) as CredentialChange[]);
      } catch (error) {
        onError(error);
      }
    });
  }

  static async connect(url: string, onError: (error: unknown) => void): Promise<RedisEventBus> {
    const bus = new RedisEventBus(url, onError);
    await Promise.all([bus.publisher.connect(), bus.subscriber.connect()]);
    await bus.subscriber.subscribe(GRAPH_CHANNEL, CREDENTIAL_CHANNEL);
    return bus;
  }

  private send(channel: string, message: unknown): void {
    // The change is committed already; a lost graph event is recovered by
    // clients resuming from their last seq, and a lost credential change by
    // the periodic re-check of held credentials, so a failure is reported, not thrown.
    this.publisher.publish(channel, JSON.stringify(message)).catch(this.onError);
  }

  publish(events: ChangeEvent[]): void {
    this.send(GRAPH_CHANNEL, events);
  }

  subscribe(accountId: string, listener: ChangeListener): () => void {
    return this.local.subscribe(accountId, listener);
  }

  credentialsChanged(changes: CredentialChange[]): void {
    if (changes.length > 0) this.send(CREDENTIAL_CHANNEL, changes);
  }

  onCredentialsChanged(listener: CredentialChangeListener): () => void {
    return this.local.onCredentialsChanged(listener);
  }

  async close(): Promise<void> {
    await this.local.close();
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }
}
