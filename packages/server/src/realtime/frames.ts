import type { ServerMessage } from '@engram/shared';
import type { ChangeEvent } from '../lib/change-event.js';

/**
 * One server message, encoded once as a complete WebSocket text frame (RFC
 * 6455 §5.2: FIN, opcode 1, unmasked as every server frame is). A graph event
 * goes to every subscriber of its account: encoding it once and writing the
 * same bytes to each socket is what makes a 1,000-socket fan-out cheap.
 */
export interface Frame {
  /** Header and payload, ready for the socket. */
  readonly bytes: Buffer;
  /** Where the payload (the JSON text) starts in `bytes`. */
  readonly payloadOffset: number;
}

const FIN_TEXT = 0x81;

export function textFrame(text: string): Frame {
  const payload = Buffer.byteLength(text);
  const headerLength = payload < 126 ? 2 : payload < 65_536 ? 4 : 10;
  const bytes = Buffer.allocUnsafe(headerLength + payload);
  bytes[0] = FIN_TEXT;
  if (payload < 126) {
    bytes[1] = payload;
  } else if (payload < 65_536) {
    bytes[1] = 126;
    bytes.writeUInt16BE(payload, 2);
  } else {
    bytes[1] = 127;
    bytes.writeUInt32BE(Math.floor(payload / 2 ** 32), 2);
    bytes.writeUInt32BE(payload >>> 0, 6);
  }
  bytes.write(text, headerLength, 'utf8');
  return { bytes, payloadOffset: headerLength };
}

/** The JSON text of a frame (tests, and the fallback through `ws.send`). */
export function frameText(frame: Frame): Buffer {
  return frame.bytes.subarray(frame.payloadOffset);
}

/**
 * A graph event as the realtime message (docs/product.md, States): `{ id, type, payload (with seq),
 * timestamp, seq, space }`, and `origin` when the change named its client.
 */
export function eventMessage(event: ChangeEvent): ServerMessage {
  return {
    id: `event-${event.seq}`,
    type: event.type,
    payload: { ...event.payload, seq: event.seq },
    timestamp: event.at,
    seq: event.seq,
    space: event.space,
    ...(event.origin ? { origin: event.origin } : {}),
  };
}

const framed = new WeakMap<ChangeEvent, Frame>();

/** The event's frame, encoded on first use and shared by every socket after. */
export function eventFrame(event: ChangeEvent): Frame {
  let frame = framed.get(event);
  if (!frame) {
    frame = textFrame(JSON.stringify(eventMessage(event)));
    framed.set(event, frame);
  }
  return frame;
}
