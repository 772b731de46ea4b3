import { GRAPH_EVENT_TYPES, type GraphEventType, type ServerMessage } from '@engram/shared';

/** A change to the account's graph, as the gateway sends it (spec §4, §7). */
export interface GraphEvent extends ServerMessage {
  type: GraphEventType;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads one frame from the gateway: `{ id, type, payload, timestamp, seq? }`.
 * Anything else (not text, not JSON, no `type`) is null; the caller only logs
 * it (spec §8: unparseable realtime messages are only logged).
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
  const seq = parsed.seq;
  return {
    id: typeof parsed.id === 'string' ? parsed.id : '',
    type: parsed.type,
    payload: isRecord(parsed.payload) ? parsed.payload : {},
    timestamp: typeof parsed.timestamp === 'string' ? parsed.timestamp : '',
    ...(typeof seq === 'number' && Number.isSafeInteger(seq) ? { seq } : {}),
  };
}

const GRAPH_EVENT_TYPE_SET: ReadonlySet<string> = new Set(GRAPH_EVENT_TYPES);

export function isGraphEvent(message: ServerMessage): message is GraphEvent {
  return GRAPH_EVENT_TYPE_SET.has(message.type);
}

/** A payload field as a non-empty string, or undefined. */
export function stringField(payload: Record<string, unknown>, key: string): string | undefined {
  const value = payload[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
