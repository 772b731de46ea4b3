import { Redis } from 'ioredis';
import type { ChangeEvent } from '../features/graph/graph.service.js';
import { LocalEventBus, type ChangeListener, type EventBus } from './event-bus.js';

const CHANNEL = 'engram:graph-events';

/**
 * Fans committed changes out across nodes: every node publishes to one Redis
 * channel and delivers what it receives (its own events included) to its
 * local listeners, so each event reaches each listener once.
 */
export class RedisEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  private constructor(url: string, onError: (error: unknown) => void) {
    this.publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    this.subscriber = new Redis(url, { lazyConnect: true });
    this.publisher.on('error', onError);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (_channel: string, message: string) => {
      try {
        this.local.publish(JSON.parse(message) as ChangeEvent[]);
      } catch (error) {
        onError(error);
      }
    });
  }

  static async connect(url: string, onError: (error: unknown) => void): Promise<RedisEventBus> {
    const bus = new RedisEventBus(url, onError);
    await Promise.all([bus.publisher.connect(), bus.subscriber.connect()]);
    await bus.subscriber.subscribe(CHANNEL);
    return bus;
  }

  publish(events: ChangeEvent[]): void {
    // The change is committed already; a lost publish is recovered by clients
    // resuming from their last seq, so a failure is reported, not thrown.
    this.publisher.publish(CHANNEL, JSON.stringify(events)).catch((error: unknown) => {
      this.subscriber.emit('error', error);
    });
  }

  subscribe(accountId: string, listener: ChangeListener): () => void {
    return this.local.subscribe(accountId, listener);
  }

  async close(): Promise<void> {
    await this.local.close();
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }
}
