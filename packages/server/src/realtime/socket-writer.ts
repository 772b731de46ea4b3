import { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { frameText, type Frame } from './frames.js';

/**
 * Joins the frames one flush writes to each socket. Every socket of an account
 * usually holds the same frames in a turn, so the last join is kept and reused
 * while the next socket's list is the same.
 */
export class JoinMemo {
  private frames: readonly Frame[] = [];
  private joined: Buffer | undefined;

  join(frames: readonly Frame[]): Buffer {
    if (frames.length === 1) return frames[0]!.bytes;
    if (this.joined && sameFrames(this.frames, frames)) return this.joined;
    this.frames = frames;
    this.joined = Buffer.concat(frames.map((frame) => frame.bytes));
    return this.joined;
  }
}

function sameFrames(a: readonly Frame[], b: readonly Frame[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The longest a frame is held back to share a write with the frames after it. */
const MAX_HOLD_MS = 20;
/** Under load, flushes leave the event loop at least this many times their own duration. */
const IDLE_RATIO = 2;
/** Sockets written per slice of a flush; I/O (database replies, requests) runs between slices. */
const SLICE = 128;

/**
 * Writes every socket's pending frames in one write per socket: the write (a
 * syscall: ~10–20 µs of kernel time per socket on loopback, next to ~1 µs of
 * JS) is what a fan-out costs, not the number of frames in it.
 *
 * When idle a frame goes out at the end of the current event-loop turn. Under
 * load the next flush waits twice as long as the last one took (at most
 * MAX_HOLD_MS), so fan-out takes at most about a third of the event loop and
 * each socket gets the events of that interval in one write: the cost per
 * event falls as the rate rises instead of saturating the loop. A flush runs
 * in slices, so a 1,000-socket fan-out never stalls the write path (whose
 * database round trips are event-loop turns) for more than a slice.
 */
export class FlushScheduler {
  private dirty = new Set<SocketWriter>();
  private scheduled = false;
  /** The pass being written, slice by slice. */
  private batch: SocketWriter[] = [];
  private next = 0;
  private memo = new JoinMemo();
  private busyMs = 0;
  /** When the last pass ended, and the event-loop time it used (performance.now() ms). */
  private lastEnd = -Infinity;
  private lastBusy = 0;

  mark(writer: SocketWriter): void {
    this.dirty.add(writer);
    if (!this.scheduled) this.schedule();
  }

  private schedule(): void {
    this.scheduled = true;
    const hold =
      Math.min(this.lastBusy * IDLE_RATIO, MAX_HOLD_MS) - (performance.now() - this.lastEnd);
    if (hold < 1) setImmediate(this.startPass);
    else setTimeout(this.startPass, hold);
  }

  private readonly startPass = (): void => {
    this.batch = [...this.dirty];
    this.dirty = new Set();
    this.next = 0;
    this.busyMs = 0;
    this.memo = new JoinMemo();
    this.writeSlice();
  };

  private readonly writeSlice = (): void => {
    const start = performance.now();
    const end = Math.min(this.next + SLICE, this.batch.length);
    // A writer flushed here takes frames queued since the pass began as well.
    for (; this.next < end; this.next++) this.batch[this.next]!.flush(this.memo);
    const now = performance.now();
    this.busyMs += now - start;
    if (this.next < this.batch.length) {
      setImmediate(this.writeSlice);
      return;
    }
    this.batch = [];
    this.lastEnd = now;
    this.lastBusy = this.busyMs;
    this.scheduled = false;
    if (this.dirty.size > 0) this.schedule();
  };
}

/**
 * One WebSocket's outgoing messages, in the order they were queued, written
 * as ready-made frames straight to the connection's TCP socket (the one `ws`
 * itself writes to; `ws` sends whole frames at once when compression is off,
 * so frames never interleave). A client that lets too much pile up unread is
 * handed to `tooSlow` instead of being written to.
 */
export class SocketWriter {
  private pending: Frame[] = [];
  private readonly raw: Socket | undefined;

  constructor(
    private readonly ws: WebSocket,
    /** The upgraded request's socket; undefined (or not a TCP socket) falls back to `ws.send`. */
    raw: unknown,
    private readonly scheduler: FlushScheduler,
    private readonly maxBufferedBytes: number,
    private readonly tooSlow: () => void,
  ) {
    // Raw frames are only valid without extensions (no permessage-deflate).
    this.raw = raw instanceof Socket && ws.extensions === '' ? raw : undefined;
  }

  write(frame: Frame): void {
    if (this.pending.push(frame) === 1) this.scheduler.mark(this);
  }

  /** Drops what is pending (the socket is closing). */
  discard(): void {
    this.pending = [];
  }

  flush(memo: JoinMemo): void {
    const frames = this.pending;
    if (frames.length === 0) return;
    this.pending = [];
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.maxBufferedBytes) {
      this.tooSlow();
      return;
    }
    const raw = this.raw;
    if (raw && raw.writable) {
      raw.write(memo.join(frames));
      return;
    }
    for (const frame of frames) this.ws.send(frameText(frame), { binary: false });
  }
}
