/**
 * The realtime feed's events (docs/api.md, Realtime), written out here because the
 * WebSocket is not part of the OpenAPI document: the same shapes as the
 * server's change log sends (packages/shared/src/schemas/realtime.ts).
 */

interface EntityChange {
  entityId: string;
  id: string;
  name: string;
  type: string;
}

interface RelationChange {
  relationId: string;
  id: string;
  fromEntityId: string;
  toEntityId: string;
  relationType: string;
}

interface ObservationsAdded {
  entityId: string;
  observations: {
    id: string;
    /** The text, cut to its first 200 characters. */
    content: string;
    /** When it was cut: the whole text's length. */
    length?: number;
    truncated?: true;
  }[];
}

interface EntitiesMerged {
  entityId: string;
  name: string;
  mergedIds: string[];
  mergedNames: string[];
}

interface Payloads {
  entity_created: EntityChange;
  entity_updated: EntityChange;
  entity_deleted: EntityChange;
  observation_added: ObservationsAdded;
  relation_created: RelationChange;
  relation_updated: RelationChange;
  relation_deleted: RelationChange;
  entity_merged: EntitiesMerged;
}

export type GraphEventType = keyof Payloads;

/** One change to the space's graph, in seq order, each once. */
export type GraphEvent = {
  [T in GraphEventType]: {
    type: T;
    /** `event-<seq>`. */
    id: string;
    /** The account's change-log position: pass the last one handled as `lastSeq` to resume. */
    seq: number;
    /** The slug of the space changed. */
    space: string;
    payload: Payloads[T] & { seq: number };
    timestamp: string;
    /** The `clientId` of the client whose request made the change, when it named one. */
    origin?: string;
  };
}[GraphEventType];

/**
 * Events were missed and cannot be replayed: `compacted` (older than the
 * plan's change-log retention), `too_many` (more than a replay sends), or
 * `no_position` (the connection dropped before any event was seen). Reload
 * what you hold; the feed goes on from now.
 */
export interface ResyncRequired {
  type: 'resync_required';
  lastSeq: number;
  reason: string;
}

export type LiveEvent = GraphEvent | ResyncRequired;

/** A message of the gateway, as read off the socket. */
export interface LiveMessage {
  type: string;
  payload: Record<string, unknown>;
  seq?: number;
}
