import { z } from 'zod';

/** Realtime constants shared by the gateway and the web client (spec §9). */
export const REALTIME_PATH = '/ws/connect';
export const PING_INTERVAL_MS = 30_000;
export const RECONNECT_INTERVAL_MS = 5_000;
export const MAX_RECONNECT_ATTEMPTS = 10;
export const NORMAL_CLOSE_CODE = 1000;
/** The gateway closes with this when the api_key is missing, unknown or expired. */
export const UNAUTHORIZED_CLOSE_CODE = 4401;

export const GRAPH_EVENT_TYPES = [
  'entity_created',
  'entity_updated',
  'entity_deleted',
  'observation_added',
  'relation_created',
  'relation_updated',
  'relation_deleted',
] as const;
export type GraphEventType = (typeof GRAPH_EVENT_TYPES)[number];

const envelope = { id: z.string().max(100).optional(), timestamp: z.unknown().optional() };

/** What a client may send. `lastSeq` resumes after the last event it saw. */
export const clientMessage = z.discriminatedUnion('type', [
  z.object({
    ...envelope,
    type: z.literal('subscribe_to_graph_changes'),
    payload: z.object({ lastSeq: z.number().int().min(0).optional() }).default({}),
  }),
  z.object({
    ...envelope,
    type: z.literal('subscribe_to_entity'),
    payload: z.object({ entityId: z.string().min(1).max(200) }),
  }),
  z.object({
    ...envelope,
    type: z.literal('unsubscribe_from_entity'),
    payload: z.object({ entityId: z.string().min(1).max(200) }),
  }),
  z.object({ ...envelope, type: z.literal('ping'), payload: z.unknown().optional() }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

/** Every message either way: `{ id, type, payload, timestamp }`; graph events also carry `seq`. */
export interface ServerMessage {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  timestamp: string;
  seq?: number;
}
