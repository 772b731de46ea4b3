/**
 * N real WebSocket clients on /ws/connect, each subscribed to the account's
 * graph changes, recording when each event of the run's writes arrived.
 *
 * The per-message path is kept as light as possible (it runs clients × rate
 * times a second on the same machine as the server): the top-level `seq` is
 * read off the end of the text, and each event is JSON-parsed once, by the
 * first client that receives it, not once per client.
 */
import WebSocket from 'ws';
import { clock } from './clock.js';

interface EventInfo {
  /** The measured write this event reports, or -1 (warm-up, another run). */
  index: number;
  /** The event's `timestamp` (set by the server when the change was recorded), epoch ms. */
  at: number;
}

export class Subscribers {
  readonly sockets: WebSocket[] = [];
  /** Per client, per write index: when its event first arrived (epoch ms), 0 if never. */
  readonly received: Float64Array[] = [];
  /** Per client, per write index: how many times its event arrived. */
  readonly counts: Uint8Array[] = [];
  private readonly lastSeq: number[] = [];
  private readonly seqs = new Map<number, EventInfo>();
  /** The server's `timestamp` of each measured write's event, epoch ms (0: never seen). */
  readonly eventAt: Float64Array;
  unique = 0;
  duplicates = 0;
  outOfOrder = 0;
  /** Events that are not one of this run's measured writes (warm-up). */
  other = 0;
  errors = 0;
  /** Close codes of sockets that closed before the run ended them. */
  readonly unexpectedCloses = new Map<number, number>();
  private closing = false;
  private readonly subscribedWaiters = new Map<number, () => void>();

  constructor(
    private readonly prefix: string,
    readonly writes: number,
  ) {
    this.eventAt = new Float64Array(writes);
  }

  /** The write index a measured write's entity name carries (`<prefix>-<i>`), else -1. */
  private indexOfName(name: unknown): number {
    if (typeof name !== 'string' || !name.startsWith(this.prefix)) return -1;
    const rest = name.slice(this.prefix.length);
    if (!/^\d+$/.test(rest)) return -1;
    const index = Number(rest);
    return index < this.writes ? index : -1;
  }

  private onMessage(client: number, data: WebSocket.RawData): void {
    const now = clock();
    const text = data.toString();
    const at = text.lastIndexOf('"seq":');
    if (at < 0) {
      this.onControl(client, text);
      return;
    }
    const seq = parseInt(text.slice(at + 6), 10);
    let info = this.seqs.get(seq);
    if (!info) {
      const message = JSON.parse(text) as { timestamp: string; payload: { name?: unknown } };
      info = { index: this.indexOfName(message.payload.name), at: Date.parse(message.timestamp) };
      this.seqs.set(seq, info);
      if (info.index >= 0) this.eventAt[info.index] = info.at;
    }
    if (seq < this.lastSeq[client]!) this.outOfOrder += 1;
    this.lastSeq[client] = seq;
    if (info.index < 0) {
      this.other += 1;
      return;
    }
    const counts = this.counts[client]!;
    if (counts[info.index] === 0) {
      this.received[client]![info.index] = now;
      this.unique += 1;
    } else {
      this.duplicates += 1;
    }
    if (counts[info.index]! < 255) counts[info.index]! += 1;
  }

  private onControl(client: number, text: string): void {
    const message = JSON.parse(text) as { type: string; payload: { channel?: string } };
    if (message.type === 'subscribed' && message.payload.channel === 'graph') {
      this.subscribedWaiters.get(client)?.();
      this.subscribedWaiters.delete(client);
    } else if (message.type === 'error' || message.type === 'resync_required') {
      this.errors += 1;
    }
  }

  private async openOne(url: string, client: number): Promise<void> {
    const socket = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    this.sockets[client] = socket;
    this.received[client] = new Float64Array(this.writes);
    this.counts[client] = new Uint8Array(this.writes);
    this.lastSeq[client] = 0;
    socket.on('message', (data) => this.onMessage(client, data));
    socket.on('error', () => {
      this.errors += 1;
    });
    socket.on('close', (code) => {
      if (!this.closing)
        this.unexpectedCloses.set(code, (this.unexpectedCloses.get(code) ?? 0) + 1);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`client ${client}: no 'subscribed' in 60 s`)),
        60_000,
      );
      this.subscribedWaiters.set(client, () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('open', () =>
        socket.send(
          JSON.stringify({ id: `sub-${client}`, type: 'subscribe_to_graph_changes', payload: {} }),
        ),
      );
      socket.once('close', (code) => {
        clearTimeout(timer);
        reject(new Error(`client ${client}: closed with ${code} before subscribing`));
      });
    });
  }

  /** Every seq any client received, ascending, with the write index it reports (-1: not measured). */
  seen(): { seq: number; index: number }[] {
    return [...this.seqs]
      .map(([seq, info]) => ({ seq, index: info.index }))
      .sort((a, b) => a.seq - b.seq);
  }

  /** Opens `count` subscribed clients, `concurrency` handshakes at a time. */
  async open(baseUrl: string, apiKey: string, count: number, concurrency = 50): Promise<void> {
    const url = new URL('/ws/connect', baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('api_key', apiKey);
    let next = 0;
    const worker = async () => {
      while (next < count) await this.openOne(url.toString(), next++);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.readyState === WebSocket.CLOSED) return resolve();
            const timer = setTimeout(() => {
              socket.terminate();
              resolve();
            }, 5_000);
            socket.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            socket.close(1000);
          }),
      ),
    );
  }
}

export interface Replayed {
  seq: number;
  type: string;
  name: unknown;
  timestamp: string;
}

/**
 * What a client resuming after `lastSeq` is sent from the change log (the
 * replay before `subscribed`): to tell an event the live stream skipped from
 * one that was never committed.
 */
export async function replayAfter(
  baseUrl: string,
  apiKey: string,
  lastSeq: number,
): Promise<Replayed[]> {
  const url = new URL('/ws/connect', baseUrl.replace(/^http/, 'ws'));
  url.searchParams.set('api_key', apiKey);
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const events: Replayed[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no replay in 15 s')), 15_000);
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as {
          type: string;
          seq?: number;
          timestamp: string;
          payload: { name?: unknown; channel?: string };
        };
        if (message.seq !== undefined) {
          events.push({
            seq: message.seq,
            type: message.type,
            name: message.payload.name,
            timestamp: message.timestamp,
          });
        } else if (message.type === 'subscribed' && message.payload.channel === 'graph') {
          clearTimeout(timer);
          resolve();
        }
      });
      socket.once('open', () =>
        socket.send(JSON.stringify({ type: 'subscribe_to_graph_changes', payload: { lastSeq } })),
      );
      socket.once('error', reject);
    });
  } finally {
    socket.terminate();
  }
  return events;
}
