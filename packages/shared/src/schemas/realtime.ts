import { z } from 'zod';

/** Realtime constants shared by the gateway and the web client (docs/product.md, Numbers). */
export const REALTIME_PATH = '/ws/connect';
export const PING_INTERVAL_MS = 30_000;
export const RECONNECT_INTERVAL_MS = 5_000;
export const MAX_RECONNECT_ATTEMPTS = 10;
export const NORMAL_CLOSE_CODE = 1000;
/** The gateway closes with this when the api_key is missing, unknown or expired. */
export const UNAUTHORIZED_CLOSE_CODE = 4401;

/**
 * A request header naming the client (one browser tab) that made a change:
 * the change's events carry it back as `origin`, so that tab can tell its own
 * changes from those made elsewhere. Letters, digits, '-' and '_', 8–64 long.
 */
export const CLIENT_ID_HEADER = 'x-engram-client';
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export const GRAPH_EVENT_TYPES = [
  'entity_created',
  'entity_updated',
  'entity_deleted',
  'observation_added',
  'relation_created',
  'relation_updated',
  'relation_deleted',
  'entity_merged',
] as const;
export type GraphEventType = (typeof GRAPH_EVENT_TYPES)[number];

const entityChange = z.object({
  entityId: z.string(),
  id: z.string(),
  name: z.string(),
  type: z.string(),
});
const relationChange = z.object({
  relationId: z.string(),
  id: z.string(),
  fromEntityId: z.string(),
  toEntityId: z.string(),
  relationType: z.string(),
});
/**
 * Characters of an observation's text an event carries. Events are kept in the
 * change log for the plan's retention window: they say what changed and how
 * big it is, and a client that wants a longer text reads the entity.
 */
export const OBSERVATION_PREVIEW_CHARS = 200;

const observationsAdded = z.object({
  entityId: z.string(),
  observations: z.array(
    z.object({
      id: z.string(),
      /** The text, cut to OBSERVATION_PREVIEW_CHARS characters. */
      content: z.string(),
      /** Present when the text was cut: the whole text's length in characters. */
      length: z.number().int().optional(),
      truncated: z.literal(true).optional(),
    }),
  ),
});

/** One merge (its only event): the sources, gone, became `entityId`, which they name as aliases. */
const entitiesMerged = z.object({
  entityId: z.string(),
  name: z.string(),
  mergedIds: z.array(z.string()),
  mergedNames: z.array(z.string()),
});

/**
 * A change to an account's graph, as the change log records it and the
 * gateway sends it (docs/product.md, States): the server emits exactly these payloads, the
 * gateway routes entity subscriptions by them, the web client reads them.
 */
export const graphChange = z.discriminatedUnion('type', [
  z.object({ type: z.literal('entity_created'), payload: entityChange }),
  z.object({ type: z.literal('entity_updated'), payload: entityChange }),
  z.object({ type: z.literal('entity_deleted'), payload: entityChange }),
  z.object({ type: z.literal('observation_added'), payload: observationsAdded }),
  z.object({ type: z.literal('relation_created'), payload: relationChange }),
  z.object({ type: z.literal('relation_updated'), payload: relationChange }),
  z.object({ type: z.literal('relation_deleted'), payload: relationChange }),
  z.object({ type: z.literal('entity_merged'), payload: entitiesMerged }),
]);
export type GraphChange = z.infer<typeof graphChange>;
export type GraphChangePayload<T extends GraphEventType> = Extract<
  GraphChange,
  { type: T }
>['payload'];

/** The entities a change is about: an entity subscription receives the change when it names one. */
export function entitiesOfChange(change: GraphChange): string[] {
  if (change.type === 'entity_merged') {
    return [change.payload.entityId, ...change.payload.mergedIds];
  }
  return 'fromEntityId' in change.payload
    ? [change.payload.fromEntityId, change.payload.toEntityId]
    : [change.payload.entityId];
}

const envelope = { id: z.string().max(100).optional(), timestamp: z.unknown().optional() };

/** What a client may send. `lastSeq` resumes after the last event it saw. */
export const clientMessage = z.discriminatedUnion('type', [
  z.object({
    ...envelope,
    type: z.literal('subscribe_to_graph_changes'),
    payload: z
      .object({
        lastSeq: z.number().int().min(0).optional(),
        /** The space to follow (its slug); the connection's own (`?space=`, else default) when absent. */
        space: z.string().min(1).max(64).optional(),
      })
      .default({}),
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

/**
 * Every message either way: `{ id, type, payload, timestamp }`; graph events
 * also carry `seq` (the account's change-log position), `space` (the slug of
 * the space changed), and `origin` when the request that made them named its
 * client (CLIENT_ID_HEADER).
 */
export interface ServerMessage {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  timestamp: string;
  seq?: number;
  space?: string;
  origin?: string;
}
