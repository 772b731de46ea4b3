import {
  GRAPH_EVENT_TYPES,
  graphChange,
  type GraphChange,
  type ServerMessage,
} from '@engram/shared';

/**
 * A change to the account's graph as the gateway sends it (docs/product.md, States): the
 * shared `graphChange` union — the payloads the server's change log records —
 * inside the message envelope; `origin` names the tab that made it, if one did.
 */
export type GraphEvent = GraphChange & Omit<ServerMessage, 'type' | 'payload'>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads one frame from the gateway: `{ id, type, payload, timestamp, seq?, origin? }`.
 * Anything else (not text, not JSON, no `type`) is null; the caller only logs
 * it (docs/product.md, Failures: unparseable realtime messages are only logged).
 */
export function parseServerMessage(data: unknown): ServerMessage | null {
  if (typeof data !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || typeof parsed.type !== 'string' || parsed.type === '') return null;
  const { seq, origin } = parsed;
  return {
    id: typeof parsed.id === 'string' ? parsed.id : '',
    type: parsed.type,
    payload: isRecord(parsed.payload) ? parsed.payload : {},
    timestamp: typeof parsed.timestamp === 'string' ? parsed.timestamp : '',
    ...(typeof seq === 'number' && Number.isSafeInteger(seq) ? { seq } : {}),
    ...(typeof origin === 'string' && origin !== '' ? { origin } : {}),
  };
}

const GRAPH_EVENT_TYPE_SET: ReadonlySet<string> = new Set(GRAPH_EVENT_TYPES);

/** Whether the message claims to be a graph change (whether or not its payload is valid). */
export function hasGraphEventType(message: ServerMessage): boolean {
  return GRAPH_EVENT_TYPE_SET.has(message.type);
}

/**
 * The message as a graph event, read with the shared union; null when it is
 * not one, or when its payload is not the shape the server emits.
 */
export function readGraphEvent(message: ServerMessage): GraphEvent | null {
  const change = graphChange.safeParse({ type: message.type, payload: message.payload });
  if (!change.success) return null;
  return {
    ...change.data,
    id: message.id,
    timestamp: message.timestamp,
    ...(message.seq === undefined ? {} : { seq: message.seq }),
    ...(message.origin === undefined ? {} : { origin: message.origin }),
  };
}
